// Small-input device sort by counting comparisons: one launch, no workspace. Two kernels: the
// plain one, every key compared with all n, and (below) the bucketed one for the larger inputs.
//
// The rank of key i in a stable sort is the number of keys j that sort before it: those with a
// smaller sort value, and those with an equal one and j < i. Every block copies the sort values of
// all n keys (the key's bit-ordered form, -0.0 mapped onto +0.0, masked to [begin_bit, end_bit))
// into shared memory; each warp owns rank_sort_keys_per_warp consecutive keys, its lanes count over
// interleaved 16-byte slices of the whole array, a warp-wide sum (warp_reduce) gives each owned
// key its rank, and the owning lane writes the key and its value straight to that position of the
// output. No block-wide barrier after the load.
//
// n^2 comparisons (two instructions each for 32-bit sort values) are spread over the whole GPU,
// so the sort of a few thousand keys takes a few microseconds, where a radix sort in one block is
// a chain of barriers and shared atomics, pass after pass. The result
// is exactly the LSD radix sort's: the same sort values, equal ones in input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../block/block_scan.cuh"
#include "../detail/config.cuh"
#include "../detail/radix_traits.cuh"
#include "../shape.cuh"
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

/// The sort value of a key's bits: ordered (ascending or descending), -0.0 onto +0.0, masked to
/// the window.
template <class Key, bool Descending, class Word>
GPUPRIM_DEVICE Word rank_sort_value(typename radix_key<Key>::bits_t bits, Word window) {
  using traits = radix_key<Key>;
  return static_cast<Word>(traits::digit_bits_scheduled(traits::order(bits, Descending))) & window;
}

/// The key (and value) one lane of a rank sort owns: loaded early (in flight while the block
/// fills its shared memory), stored once its place is known.
template <class Key, bool HasValues, class Args>
struct rank_sort_owned {
  using bits_t = typename radix_key<Key>::bits_t;
  using value_t = std::remove_cv_t<std::remove_pointer_t<decltype(Args::values_in)>>;
  bits_t key{};
  value_t value{};
  GPUPRIM_DEVICE void load(const Args& a, int i) {
    key = reinterpret_cast<const bits_t*>(a.keys_in)[i];
    if constexpr (HasValues) value = radix_input_value(a.values_in, std::size_t(i));
  }
  GPUPRIM_DEVICE void store(const Args& a, unsigned at) const {
    if (!a.keys_discarded) reinterpret_cast<bits_t*>(a.keys_out)[at] = key;
    if constexpr (HasValues) a.values_out[at] = value;
  }
};

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
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %2;\n\tmadc.lo.u32 %0, %3, 1, 0;\n\t}"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(count));
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
      : "r"(static_cast<std::uint32_t>(a)), "r"(static_cast<std::uint32_t>(a >> 32)),
        "r"(static_cast<std::uint32_t>(b)),
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

/// before[k]: the keys that sort before the owned keys first + k (in this warp's home slice), over
/// the lane's share of all `slices` slices: loops over the slices before and after the home slice,
/// and the tie-break by index in the home slice itself.
template <int Owned, class Word>
GPUPRIM_DEVICE void count_before(const Word* sort_values, int slices, int home, int first, int lane,
                                 const Word (&mine)[Owned], unsigned (&before)[Owned]) {
  constexpr int per_load = 16 / static_cast<int>(sizeof(Word));
  Word not_mine[Owned];     // w + ~m carries when w > m
  Word neg_mine[Owned];     // w + (0 - m) carries when w >= m (for m != 0)
  unsigned greater[Owned];   // keys before the home slice that sort after the owned key
  unsigned at_least[Owned];  // keys after the home slice whose value is not smaller
#pragma unroll
  for (int k = 0; k < Owned; ++k) {
    not_mine[k] = static_cast<Word>(~mine[k]);
    neg_mine[k] = static_cast<Word>(Word(0) - mine[k]);
    greater[k] = 0;
    at_least[k] = 0;
    before[k] = 0;
  }
  const uint4* loads = reinterpret_cast<const uint4*>(sort_values) + lane;
  // Slices before: every key there sorts first unless its value is greater.
  count_carries(loads, 0, home, not_mine, greater);
  {
    Word w[per_load];
    unpack_words(loads[home * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
      const int j = (home * 32 + lane) * per_load + e;
#pragma unroll
      for (int k = 0; k < Owned; ++k) {
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
  for (int k = 0; k < Owned; ++k) {
    before[k] += earlier - greater[k] + (mine[k] == 0 ? 0u : later - at_least[k]);
  }
}

/// Sorts all n keys of `a` (a radix_sort_args; values too when HasValues) by counting comparisons,
/// with rank_sort_smem_bytes<Key>(n) of dynamic shared memory; any block size that is a multiple
/// of 32, a grid of at least n / rank_sort_keys_per_warp warps.
template <class Key, bool HasValues, bool Descending, class Args>
__global__ void __launch_bounds__(rank_sort_max_threads) radix_rank_sort_kernel(const Args a) {
  using bits_t = typename radix_key<Key>::bits_t;
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
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warps = static_cast<int>(blockDim.x / 32);
  const int first = (static_cast<int>(blockIdx.x) * warps + static_cast<int>(threadIdx.x / 32)) * owned;
  // The owned key (and value) of lanes 0..owned-1, loaded now, in flight with the fill.
  rank_sort_owned<Key, HasValues, Args> item;
  const int i = first + lane;
  if (lane < owned && i < n) item.load(a, i);
  // Padding sorts after every key (all ones, and after them in index order).
  // Loads in batches of fill_batch, all in flight at once.
  constexpr int fill_batch = 4;
  const int padded = slices * slice;
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
    word_t w[fill_batch];
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      const int j = base + r * stride;
      w[r] = ~word_t(0);
      if (j < n) w[r] = rank_sort_value<Key, Descending>(keys_in[j], window);
    }
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
    }
  }
  __syncthreads();

  if (first >= n) return;
  const int home = first / slice;  // the slice that holds this warp's keys
  word_t mine[owned];
  unsigned before[owned];
#pragma unroll
  for (int k = 0; k < owned; ++k) mine[k] = sort_values[first + k];
  count_before(sort_values, slices, home, first, lane, mine, before);
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    const unsigned r = warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  if (lane < owned && i < n) item.store(a, rank);
}

// ---- Bucketed rank sort: the comparisons confined to a key's bucket --------------------------
//
// From bucket_sort_min_items keys on, each block first sorts the sort values into buckets by the
// highest bucket_digit_bits bits in which they differ (a histogram whose shared atomics also hand
// out places within the buckets, a block scan, a scatter), as (value, index) pairs: all distinct,
// ordered as the stable sort orders the keys. A key's rank is its bucket's start plus the number
// of pairs of its bucket that are smaller, so that uniform keys are compared with a few others
// instead of all n; however skewed the keys, no more comparisons than the plain rank sort makes.
//
// Skewed keys crowd one bucket (AND-of-3 keys put ~23% of them into bucket 0, so each of those is
// compared with ~3800 others at 16384 keys). Where some warp finds 8 of its 32 lanes' first values
// in one bucket, the sort splits that bucket into parts by the next bucket_digit_bits bits: its
// items count in a second set of counters (the parts order as their values do, the bits above them
// being the bucket's), which the block scan of the bucket counters turns into starts within the
// bucket too (both counts packed into one word). The split
// sort's counters lie in a spread layout (bucket_spread) against the bank conflicts of
// single-bit buckets. H200, in-process A/B, u32 AND-of-3 keys: 16384
// 0.72-0.74x the time (26.1 -> 19.2 us), 12288 0.80-0.81x, 8192 0.90-0.94x, 6144 0.94-0.97x;
// uniform keys, AND-of-2 keys and keys in [0, 2^20), which do not split, 1.01-1.09x (the
// detection, the scan's choice of layout, the second copy of the loops). Keys of 64 bits and
// floating keys never split (bucket_can_split).
//
// A sort that does not split scatters only the pairs of the buckets its block's owned keys lie in
// (`needed`); the bucket scan combines its warp totals by shuffles (block_scan, 16 warps and more)
// and a split sort's part counts ride in the high half of the bucket counters' scan; each lane
// finds its owned key's range of pairs before the warp counts them. H200, in-process A/B against
// the sort before these, 16384 keys: uniform u32 0.91x the time, u64
// 0.87-0.89x, f32 0.92-0.94x, AND-of-2 0.92-0.93x, AND-of-3 0.93x, u32/u32 pairs 0.91x.

inline constexpr int bucket_sort_threads = 1024;
inline constexpr int bucket_digit_bits = 11;
inline constexpr int bucket_count = 1 << bucket_digit_bits;
/// At most this many keys: their pairs take 128 KiB (keys of up to 4 bytes) or 192 KiB of shared
/// memory, and each thread holds 16 sort values.
inline constexpr int bucket_sort_max_items = 16384;
inline constexpr int bucket_sort_items_per_thread = bucket_sort_max_items / bucket_sort_threads;

/// The (value, index) pairs of a bucketed rank sort in shared memory, for 32-bit sort values: one
/// 64-bit word each, the value above the index, compared with one carry chain.
template <class Word>
struct bucket_pairs {
  static constexpr std::size_t bytes_per_item = sizeof(std::uint64_t);
  std::uint64_t* pairs;
  GPUPRIM_DEVICE bucket_pairs(unsigned char* smem, int) : pairs(reinterpret_cast<std::uint64_t*>(smem)) {}
  GPUPRIM_DEVICE void put(unsigned at, Word v, unsigned i) const { pairs[at] = (std::uint64_t(v) << 32) | i; }
  /// What `count_greater` compares with: the complement of the pair (v, i).
  using probe = std::uint64_t;
  static GPUPRIM_DEVICE probe probe_of(Word v, unsigned i) { return ~((std::uint64_t(v) << 32) | i); }
  /// count + the number of pairs at `at`, `at` + 32, ... (`Loads` of them) greater than the probe's.
  template <int Loads>
  GPUPRIM_DEVICE unsigned count_greater(unsigned count, unsigned at, probe q) const {
    std::uint64_t w[Loads];
#pragma unroll
    for (int l = 0; l < Loads; ++l) w[l] = pairs[at + 32 * l];
#pragma unroll
    for (int l = 0; l < Loads; ++l) count = plus_carry(count, w[l], q);
    return count;
  }
};

/// For 64-bit sort values: the values and the indices in two arrays, compared as one 96-bit
/// number.
template <>
struct bucket_pairs<std::uint64_t> {
  static constexpr std::size_t bytes_per_item = sizeof(std::uint64_t) + sizeof(unsigned);
  std::uint64_t* values;
  unsigned* indices;
  GPUPRIM_DEVICE bucket_pairs(unsigned char* smem, int n)
      : values(reinterpret_cast<std::uint64_t*>(smem)), indices(reinterpret_cast<unsigned*>(values + n)) {}
  GPUPRIM_DEVICE void put(unsigned at, std::uint64_t v, unsigned i) const {
    values[at] = v;
    indices[at] = i;
  }
  struct probe {
    std::uint64_t value;
    unsigned index;
  };
  static GPUPRIM_DEVICE probe probe_of(std::uint64_t v, unsigned i) { return {~v, ~i}; }
  template <int Loads>
  GPUPRIM_DEVICE unsigned count_greater(unsigned count, unsigned at, probe q) const {
    std::uint64_t v[Loads];
    unsigned i[Loads];
#pragma unroll
    for (int l = 0; l < Loads; ++l) {
      v[l] = values[at + 32 * l];
      i[l] = indices[at + 32 * l];
    }
#pragma unroll
    for (int l = 0; l < Loads; ++l) {
#if defined(__CUDA_ARCH__)
      asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %4;\n\taddc.cc.u32 t, %2, %5;\n\taddc.cc.u32 t, %3, %6;\n\t"
          "madc.lo.u32 %0, %0, 1, 0;\n\t}"
          : "+r"(count)
          : "r"(i[l]), "r"(static_cast<std::uint32_t>(v[l])), "r"(static_cast<std::uint32_t>(v[l] >> 32)), "r"(q.index),
            "r"(static_cast<std::uint32_t>(q.value)), "r"(static_cast<std::uint32_t>(q.value >> 32)));
#else
      count += (v[l] > ~q.value || (v[l] == ~q.value && i[l] > ~q.index)) ? 1u : 0u;
#endif
    }
    return count;
  }
};

/// Whether the bucketed rank sort of `Key` may split a crowded bucket into parts (see
/// radix_bucket_sort_kernel): integer keys of up to 4 bytes. 64-bit keys and floating ones keep
/// their buckets whole: with the split's registers ptxas spilled u64 keys 52 bytes a thread
/// instead of 12, f32 keys 32 instead of none.
template <class Key>
inline constexpr bool bucket_can_split = sizeof(rank_sort_word<Key>) == 4 && !radix_key<Key>::is_float;
/// A bucket is split when at least this many lanes of some warp put their first sort value into
/// it (8 of 32: about a quarter of the keys; uniform keys put 2 or 3 at most into one bucket).
inline constexpr int bucket_split_min_lanes = 8;
/// Entries of an array of bucket (or part) starts of a sort that may split: one for each and an
/// end entry, at their places in either layout (bucket_spread maps [bucket_count, bucket_count +
/// 32) onto itself).
inline constexpr int bucket_start_entries = bucket_count + 32;

/// Where bucket (or part) b's counter lies in the spread layout of a split sort: b with its bank
/// (low 5 bits) XORed with a hash of the bits above, so that the buckets of single-bit values (32,
/// 64, ..., 1024) no longer share bank 0 with bucket 0. A permutation within each run of 32
/// entries (modelled shared wavefronts of an AND-of-3 warp 7.6 -> 2.3).
GPUPRIM_HOST_DEVICE constexpr unsigned bucket_spread(unsigned b) { return b ^ ((((b >> 5) * 61u) >> 3) & 31u); }

/// Shared memory of a bucketed rank sort of n keys: the pairs, the bucket starts (with an end
/// entry) and, where a bucket may be split, its parts' starts.
template <class Key>
constexpr std::size_t bucket_sort_smem_bytes(std::size_t n) {
  return n * bucket_pairs<rank_sort_word<Key>>::bytes_per_item +
         (bucket_can_split<Key> ? 2 * bucket_start_entries : bucket_count + 1) * sizeof(unsigned);
}

/// OR and AND over the whole warp.
template <class Word>
GPUPRIM_DEVICE void warp_or_and(Word& any, Word& all) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(Word) == 4) {  // one REDUX instruction each
    any = __reduce_or_sync(0xffffffffu, any);
    all = __reduce_and_sync(0xffffffffu, all);
  } else
#endif
  {
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      any |= __shfl_xor_sync(0xffffffffu, any, offset);
      all &= __shfl_xor_sync(0xffffffffu, all, offset);
    }
  }
}

/// Sorts all n (bucket_sort_min_items..bucket_sort_max_items) keys of `a` (a radix_sort_args;
/// values too when HasValues) with bucket_sort_smem_bytes<Key>(n) of dynamic shared memory, in
/// blocks of bucket_sort_threads, each warp ranking `keys_per_warp` (<= 32) consecutive keys.
template <class Key, bool HasValues, bool Descending, class Args>
__global__ void __launch_bounds__(bucket_sort_threads, 1) radix_bucket_sort_kernel(const Args a, int keys_per_warp) {
  using bits_t = typename radix_key<Key>::bits_t;
  using word_t = rank_sort_word<Key>;
  constexpr int threads = bucket_sort_threads;
  constexpr int warps = threads / 32;
  constexpr int per_thread = bucket_sort_items_per_thread;
  constexpr int word_bits = 8 * static_cast<int>(sizeof(word_t));
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ word_t warp_any[warps];
  __shared__ word_t warp_all[warps];
  __shared__ unsigned warp_crowd[warps];
  // A bit for each bucket that holds one of this block's owned keys. A sort that does not split
  // scatters the pairs of those buckets only: a key's rank reads the pairs of its bucket, the
  // other buckets need just their counts (a block of uniform keys then stores ~1/16 of them).
  __shared__ unsigned needed[bucket_count / 32];
  __shared__ typename block_scan<unsigned, threads>::temp_storage scan_storage;

  const int n = static_cast<int>(a.n);
  const bucket_pairs<word_t> pairs(smem, n);
  unsigned* starts = reinterpret_cast<unsigned*>(smem + static_cast<std::size_t>(n) * pairs.bytes_per_item);
  constexpr bool can_split = bucket_can_split<Key>;
  unsigned* part_starts = starts + bucket_start_entries;  // of the crowded bucket's parts (can_split)
  const word_t window = rank_sort_window<word_t>(a.begin_bit, a.end_bit);
  const bits_t* keys_in = reinterpret_cast<const bits_t*>(a.keys_in);
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  // Items a thread holds. `r < rounds` follows from `j < n` but is uniform: without it nvcc
  // predicates every item separately (a different, longer sm_90 code for the same work).
  const int rounds = (n + threads - 1) / threads;
  const int first = (static_cast<int>(blockIdx.x) * warps + warp) * keys_per_warp;
  const int owned = first < n ? min(keys_per_warp, n - first) : 0;
  // The owned key (and value) of lanes 0..owned-1, loaded now, in flight with the others.
  rank_sort_owned<Key, HasValues, Args> item;
  if (lane < owned) item.load(a, first + lane);

  // Item r of this thread: tid + r * threads (coalesced loads). For floating keys, past the end (in
  // the last round) a thread loads the last key again, which leaves OR and AND as they are, so that
  // no load or transform needs a predicate. With one per item, the floating keys' transform (two
  // tests a key) ran out of predicate registers and nvcc issued the loads a few at a time instead
  // of all at once. H200, same process as CUB: f32 keys 0.95x the time at 16384 (1.13x that of u32
  // keys before), 0.97x at 12288, f64 0.95x; the same for integer keys took 1.02-1.03x (more
  // registers live), so they keep the tests.
  constexpr bool clamp_loads = radix_key<Key>::is_float;
  word_t v[per_thread];
  word_t any = 0;
  word_t all = ~word_t(0);
#pragma unroll
  for (int r = 0; r < per_thread; ++r) {
    v[r] = 0;
    if (r < rounds && (clamp_loads || tid + r * threads < n)) {
      // j inside the branch: declared above it, nvcc emits other code for floating keys (4% less
      // of it for f32), not the code measured.
      const int j = tid + r * threads;
      v[r] = rank_sort_value<Key, Descending>(keys_in[clamp_loads ? min(j, n - 1) : j], window);
      any |= v[r];
      all &= v[r];
    }
  }
  for (int b = tid; b < bucket_count; b += threads) {
    starts[b] = 0;
    if constexpr (can_split) part_starts[b] = 0;  // the same entries in either layout
    if (b < bucket_count / 32) needed[b] = 0;
  }
  // The bucket digit of sort values that differ in `differ`: the highest bucket_digit_bits bits in
  // which they differ (all values agree above them), so that the buckets order as their values do.
  const auto shift_of = [](word_t differ) {
    const int top = word_bits - 1 - (sizeof(word_t) == 4 ? __clz(static_cast<unsigned>(differ)) : __clzll(differ));
    return top >= bucket_digit_bits ? top + 1 - bucket_digit_bits : 0;
  };
  warp_or_and(any, all);
  // A crowded bucket (see above): each warp counts the lanes whose first value shares lane 0's
  // bucket, by the warp's own bucket digit (the block's where the warp's values differ in the same
  // top bit, as they mostly do; other warps' counts are dropped below), so that the block picks the
  // bucket to split without a barrier of its own. A warp of skewed keys whose lane 0 falls into the
  // crowded bucket finds it (AND-of-3 keys: ~7 of 32 warps, each with ~8 lanes there); a match
  // (__match_any_sync) over all lanes' buckets took 1.05-1.08x the time of this on uniform keys.
  unsigned crowd = 0;  // lanes << 16 | shift << bucket_digit_bits | bucket
  if constexpr (can_split) {
    const int warp_shift = shift_of(any ^ all);
    const unsigned b = static_cast<unsigned>(v[0] >> warp_shift) & (bucket_count - 1);
    const unsigned candidate = __shfl_sync(0xffffffffu, b, 0);
    const auto lanes = static_cast<unsigned>(__popc(__ballot_sync(0xffffffffu, b == candidate)));
    crowd = lanes << 16 | static_cast<unsigned>(warp_shift) << bucket_digit_bits | candidate;
  }
  if (lane == 0) {
    warp_any[warp] = any;
    warp_all[warp] = all;
    if constexpr (can_split) warp_crowd[warp] = crowd;
  }
  __syncthreads();
  any = warp_any[lane % warps];
  all = warp_all[lane % warps];
  warp_or_and(any, all);
  const word_t differ = any ^ all;
  if (differ == 0) {  // every sort value equal: the input order
    if (lane < owned) item.store(a, static_cast<unsigned>(first + lane));
    return;
  }
  const int shift = shift_of(differ);
  const auto bucket_of = [shift](word_t value) { return static_cast<unsigned>(value >> shift) & (bucket_count - 1); };
  // The crowded bucket, where one is split (else none: bucket_count); the parts of its values by
  // the next bucket_digit_bits bits below the bucket digit (or the lowest, overlapping it).
  unsigned crowded = bucket_count;
  if constexpr (can_split) {
    static_assert(warps == 32, "one lane per warp");
    crowd = warp_crowd[lane];
    if (((crowd >> bucket_digit_bits) & 0x1f) != static_cast<unsigned>(shift)) crowd = 0;
    crowd = warp_reduce<unsigned>{}.reduce(crowd, maximum{});
    if ((crowd >> 16) >= unsigned(bucket_split_min_lanes) && shift > 0) crowded = crowd & (bucket_count - 1);
  }
  const int part_shift = shift >= bucket_digit_bits ? shift - bucket_digit_bits : 0;
  const auto part_of = [part_shift](word_t value) {
    return static_cast<unsigned>(value >> part_shift) & (bucket_count - 1);
  };
  unsigned place[per_thread];
  // A split sort's counters lie in the spread layout (a plain one's as they are).
  const bool split = can_split && crowded < bucket_count;
  const word_t mine = rank_sort_value<Key, Descending>(item.key, window);  // of lanes 0..owned-1
  // A split sort scatters every pair: most of its keys lie in the buckets its owned keys need, and
  // the test per item cost AND-of-3 keys 1.05x the time.
  if (!split && lane < owned) atomicOr(&needed[bucket_of(mine) / 32], 1u << (bucket_of(mine) % 32));
  const auto at_of = [split](unsigned b) { return split ? bucket_spread(b) : b; };
  if (split) {
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int j = tid + r * threads;
      if (r < rounds && j < n) {
        const unsigned b = bucket_of(v[r]);
        place[r] = atomicAdd(b == crowded ? &part_starts[bucket_spread(part_of(v[r]))] : &starts[bucket_spread(b)], 1u);
      }
    }
  } else {
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int j = tid + r * threads;
      if (r < rounds && j < n) place[r] = atomicAdd(&starts[bucket_of(v[r])], 1u);
    }
  }
  __syncthreads();
  {
    constexpr int per_scan = bucket_count / threads;
    unsigned c[per_scan];
    if (split) {
      // One scan for both: bucket counts in the low half, part counts in the high half (no sum
      // exceeds bucket_sort_max_items < 2^16, so no carry crosses). The crowded bucket's own
      // counter is 0 (its items counted in their parts), so the buckets after it add its items.
      static_assert(bucket_sort_max_items < (1 << 16), "both sums fit 16 bits");
#pragma unroll
      for (int q = 0; q < per_scan; ++q) {
        const unsigned at = bucket_spread(tid * per_scan + q);
        c[q] = starts[at] | part_starts[at] << 16;
      }
      unsigned totals = 0;
      block_scan<unsigned, threads>(scan_storage).exclusive_sum(c, c, totals);
      const unsigned crowded_items = totals >> 16;
#pragma unroll
      for (int q = 0; q < per_scan; ++q) {
        const auto b = static_cast<unsigned>(tid * per_scan + q);
        starts[bucket_spread(b)] = (c[q] & 0xffffu) + (b > crowded ? crowded_items : 0u);
        part_starts[bucket_spread(b)] = c[q] >> 16;
      }
      if (tid == 0) part_starts[bucket_spread(bucket_count)] = crowded_items;
    } else {
#pragma unroll
      for (int q = 0; q < per_scan; ++q) c[q] = starts[tid * per_scan + q];
      block_scan<unsigned, threads>(scan_storage).exclusive_sum(c, c);
#pragma unroll
      for (int q = 0; q < per_scan; ++q) starts[tid * per_scan + q] = c[q];
    }
    if (tid == 0) starts[at_of(bucket_count)] = static_cast<unsigned>(n);
  }
  __syncthreads();
  if (split) {
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int j = tid + r * threads;
      if (r < rounds && j < n) {
        const unsigned b = bucket_of(v[r]);
        const unsigned at =
            starts[bucket_spread(b)] + place[r] + (b == crowded ? part_starts[bucket_spread(part_of(v[r]))] : 0u);
        pairs.put(at, v[r], static_cast<unsigned>(j));
      }
    }
  } else {
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int j = tid + r * threads;
      const unsigned b = bucket_of(v[r]);
      if (r < rounds && j < n && ((needed[b / 32] >> (b % 32)) & 1u) != 0) {
        pairs.put(starts[b] + place[r], v[r], static_cast<unsigned>(j));
      }
    }
  }
  __syncthreads();

  // Ranks: lane k holds owned key k and finds the range of pairs it is compared with (its bucket,
  // or its part of a split bucket), all owned keys' at once; then for each owned key in turn the
  // whole warp counts the pairs of that range that are greater; the smaller ones are the rest.
  unsigned my_begin = 0;
  unsigned my_end = 0;
  if (lane < owned) {
    const unsigned b = bucket_of(mine);
    my_begin = starts[at_of(b)];
    my_end = starts[at_of(b + 1)];
    if (split && b == crowded) {
      my_end = my_begin + part_starts[bucket_spread(part_of(mine) + 1)];
      my_begin += part_starts[bucket_spread(part_of(mine))];
    }
  }
  unsigned rank = 0;
  for (int k = 0; k < owned; ++k) {
    const word_t m = __shfl_sync(0xffffffffu, mine, k);
    const unsigned begin = __shfl_sync(0xffffffffu, my_begin, k);
    const unsigned end = __shfl_sync(0xffffffffu, my_end, k);
    const auto q = pairs.probe_of(m, static_cast<unsigned>(first + k));
    unsigned greater = 0;
    unsigned j = begin + static_cast<unsigned>(lane);
    // Four loads in flight a step: one at a time, a long bucket waits out each load's latency.
    for (; j + 96 < end; j += 128) greater = pairs.template count_greater<4>(greater, j, q);
    for (; j < end; j += 32) greater = pairs.template count_greater<1>(greater, j, q);
    greater = warp_reduce<unsigned>{}.sum(greater);
    if (lane == k) rank = end - 1 - greater;
  }
  if (lane < owned) item.store(a, rank);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
