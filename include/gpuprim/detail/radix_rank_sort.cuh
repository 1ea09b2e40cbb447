// Small-input device sort by counting comparisons: one launch, no workspace, no block-wide
// barrier after the load.
//
// The rank of key i in a stable sort is the number of keys j that sort before it: those with a
// smaller sort value, and those with an equal one and j < i. Every block copies the sort values of
// all n keys (the key's bit-ordered form, -0.0 mapped onto +0.0, masked to [begin_bit, end_bit))
// into shared memory; each warp owns rank_sort_keys_per_warp consecutive keys, its lanes count over
// interleaved 16-byte slices of the whole array, a warp-wide sum (warp_reduce) gives each owned key its rank,
// and the owning lane writes the key and its value straight to that position of the output.
//
// n^2 comparisons (two instructions each for 32-bit sort values) are spread over the whole GPU,
// so the sort of a few thousand keys takes a few microseconds, where a radix sort in one block is
// a chain of barriers and shared atomics, pass after pass (notes/PERF.md, session 14). The result
// is exactly the LSD radix sort's: the same sort values, equal ones in input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "config.cuh"
#include "radix_traits.cuh"
#include "../warp/warp_reduce.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Keys whose ranks one warp counts (consecutive; divides the 32 x 16-byte slice of a warp).
inline constexpr int rank_sort_keys_per_warp = 4;
inline constexpr int rank_sort_max_threads = 1024;

/// Sort values are compared as 32-bit words (keys of up to 4 bytes) or 64-bit ones.
template <class Key>
using rank_sort_word = std::conditional_t<(sizeof(Key) > 4), std::uint64_t, std::uint32_t>;

/// Mask of the bits [begin_bit, end_bit) of a sort value.
template <class Word>
GPUPRIM_HOST_DEVICE Word rank_sort_window(int begin_bit, int end_bit) {
  constexpr int word_bits = 8 * static_cast<int>(sizeof(Word));
  const Word below_end = end_bit >= word_bits ? ~Word(0) : static_cast<Word>((Word(1) << end_bit) - 1);
  const Word below_begin = begin_bit >= word_bits ? ~Word(0) : static_cast<Word>((Word(1) << begin_bit) - 1);
  return static_cast<Word>(below_end & ~below_begin);
}

/// Shared memory of a rank sort of n keys: their sort values, padded to whole warp slices.
template <class Key>
constexpr std::size_t rank_sort_smem_bytes(std::size_t n) {
  using word_t = rank_sort_word<Key>;
  constexpr std::size_t slice = 32 * (16 / sizeof(word_t));
  return (n + slice - 1) / slice * slice * sizeof(word_t);
}

/// `count + carry(a + b)`, where the carry is 1 when a + b overflows the word: the add's carry
/// into a multiply-add with carry-in (IADD3 then IMAD.X), so that half of each comparison runs on
/// the integer pipe and half on the FMA pipe. A C++ compare and add compiled to three instructions
/// (a compare, a predicated move and an add), and a subtract-with-borrow form to two integer ones;
/// at 12288 u32 keys on the H200 this form took 23.5 us against 30.7 and 34.7 for those.
GPUPRIM_DEVICE unsigned plus_carry(unsigned count, std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %2;\n\tmadc.lo.u32 %0, %3, 1, 0;\n\t}" : "=r"(r) : "r"(a), "r"(b), "r"(count));
  return r;
#else
  return count + (static_cast<std::uint32_t>(a + b) < a ? 1u : 0u);
#endif
}
GPUPRIM_DEVICE unsigned plus_carry(unsigned count, std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %3;\n\taddc.cc.u32 t, %2, %4;\n\tmadc.lo.u32 %0, %5, 1, 0;\n\t}"
      : "=r"(r)
      : "r"(static_cast<std::uint32_t>(a)), "r"(static_cast<std::uint32_t>(a >> 32)), "r"(static_cast<std::uint32_t>(b)),
        "r"(static_cast<std::uint32_t>(b >> 32)), "r"(count));
  return r;
#else
  return count + (static_cast<std::uint64_t>(a + b) < a ? 1u : 0u);
#endif
}

/// The sort values of one 16-byte shared load.
template <class Word>
GPUPRIM_DEVICE void unpack_words(const uint4& v, Word (&w)[16 / sizeof(Word)]) {
  if constexpr (sizeof(Word) == 4) {
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
  } else {
    w[0] = (static_cast<Word>(v.y) << 32) | v.x;
    w[1] = (static_cast<Word>(v.w) << 32) | v.z;
  }
}

/// counts[k] += the carries of w + addend[k] over the sort values w of slices [from, to) that
/// this lane reads (16 bytes of each slice, `loads` pointing at the lane's first).
template <int Owned, class Word>
GPUPRIM_DEVICE void count_carries(const uint4* loads, int from, int to, const Word (&addend)[Owned],
                                  unsigned (&counts)[Owned]) {
  constexpr int per_load = 16 / static_cast<int>(sizeof(Word));
#pragma unroll 4
  for (int s = from; s < to; ++s) {
    Word w[per_load];
    unpack_words(loads[s * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
#pragma unroll
      for (int k = 0; k < Owned; ++k) counts[k] = plus_carry(counts[k], w[e], addend[k]);
    }
  }
}

/// Sorts all n keys of `a` (a radix_sort_args; values too when HasValues) by counting comparisons,
/// with rank_sort_smem_bytes<Key>(n) of dynamic shared memory; any block size that is a multiple
/// of 32, a grid of at least n / rank_sort_keys_per_warp warps.
template <class Key, bool HasValues, bool Descending, class Args>
__global__ void __launch_bounds__(rank_sort_max_threads) radix_rank_sort_kernel(const Args a) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  using word_t = rank_sort_word<Key>;
  constexpr int per_load = 16 / static_cast<int>(sizeof(word_t));
  constexpr int slice = 32 * per_load;  // sort values one warp-wide 16-byte load covers
  constexpr int owned = rank_sort_keys_per_warp;
  static_assert(slice % owned == 0, "a warp's keys lie in one slice");
  extern __shared__ __align__(16) unsigned char smem[];
  word_t* sort_values = reinterpret_cast<word_t*>(smem);

  const int n = static_cast<int>(a.n);
  const int slices = (n + slice - 1) / slice;
  const word_t window = rank_sort_window<word_t>(a.begin_bit, a.end_bit);
  const bits_t* keys_in = reinterpret_cast<const bits_t*>(a.keys_in);
  // Padding sorts after every key (all ones, and after them in index order). Loads in batches
  // of fill_batch, all in flight at once.
  constexpr int fill_batch = 4;
  const int padded = slices * slice;
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
    word_t w[fill_batch];
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      const int j = base + r * stride;
      w[r] = ~word_t(0);
      if (j < n) w[r] = static_cast<word_t>(traits::digit_bits_scheduled(traits::order(keys_in[j], Descending))) & window;
    }
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
    }
  }
  __syncthreads();

  const int lane = static_cast<int>(threadIdx.x % 32);
  const int first = (static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x / 32) +
                     static_cast<int>(threadIdx.x / 32)) * owned;
  if (first >= n) return;
  word_t mine[owned];
  word_t not_mine[owned];  // w + ~m carries when w > m
  word_t neg_mine[owned];  // w + (0 - m) carries when w >= m (for m != 0)
  unsigned greater[owned];  // keys before the home slice that sort after the owned key
  unsigned at_least[owned];  // keys after the home slice whose value is not smaller
  unsigned before[owned];
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    mine[k] = sort_values[first + k];
    not_mine[k] = static_cast<word_t>(~mine[k]);
    neg_mine[k] = static_cast<word_t>(word_t(0) - mine[k]);
    greater[k] = 0;
    at_least[k] = 0;
    before[k] = 0;
  }
  const uint4* loads = reinterpret_cast<const uint4*>(sort_values) + lane;
  const int home = first / slice;  // the slice that holds this warp's keys
  // Slices before: every key there sorts first unless its value is greater.
  count_carries(loads, 0, home, not_mine, greater);
  {
    word_t w[per_load];
    unpack_words(loads[home * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
      const int j = (home * 32 + lane) * per_load + e;
#pragma unroll
      for (int k = 0; k < owned; ++k) {
        before[k] += (w[e] < mine[k] || (w[e] == mine[k] && j < first + k)) ? 1u : 0u;
      }
    }
  }
  // Slices after: only smaller values sort first.
  count_carries(loads, home + 1, slices, neg_mine, at_least);
  // This lane's keys before and after its home slice, less those that sort after the owned key
  // (no value is smaller than 0).
  const auto earlier = static_cast<unsigned>(home * per_load);
  const auto later = static_cast<unsigned>((slices - home - 1) * per_load);
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    before[k] += earlier - greater[k] + (mine[k] == 0 ? 0u : later - at_least[k]);
  }
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    const unsigned r = warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  const int i = first + lane;
  if (lane < owned && i < n) {
    reinterpret_cast<bits_t*>(a.keys_out)[rank] = keys_in[i];
    if constexpr (HasValues) a.values_out[rank] = a.values_in[i];
  }
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
