// Session 50: the rank sort of 1024 u32 keys, phase by phase. small_floor.cu put gpuprim's sort at
// an empty launch + 1.8 us, of which 0.65 is a copy of the keys, 0.2 more the sort's own traffic
// (every block loads all keys into shared memory), and ~0.9 us the counting and the warp sums. This
// program runs copies of radix_rank_sort_kernel (radix_rank_sort.cuh at f5798e1: `lib` below is
// the kernel's general form since the library took b2) with the keys a warp owns as a parameter,
// optionally stamping clock64() and %globaltimer at its phases, and times variants call by call as
// the benchmark does (launch timing, inputs rotated through copies spanning 4x L2); every variant
// is first checked against std::sort:
//   lib          the library's kernel (general form), 4 keys a warp, blocks of 256
//   copy2 u4     rank_copy: f5798e1's kernel with 2 keys a warp (u1/u2/u4: the counting loop
//                unrolled 1, 2 or 4 times; earlier versions of main ran copy4/copy1 and u1/u2)
//   b4/b2/b1     rank_small2: the branch-free unrolled counting over shared memory padded to 8
//                slices, 4, 2 or 1 keys a warp (b2 is what the library took)
//   probe ...    the same with the stamps (per block: entry, keys in shared memory, barrier
//                passed, counted, summed, stored; thread 0)
// rank_small (unrolled over 16 slices with a branch a slice) is kept for the record: slower.
// `./small_phases [rounds] [n]` (n up to 1024: the padded kernels' 8 slices)
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace gd = gpuprim::detail;
using args_t = gd::radix_sort_args<unsigned, gd::no_values>;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

constexpr int stamps = 6;

// gd::count_carries with the unroll factor as a parameter (the library's is 4).
template <int Unroll, int Owned, class Word>
__device__ __forceinline__ void count_carries_u(const uint4* loads, int from, int to, const Word (&addend)[Owned],
                                                unsigned (&counts)[Owned]) {
  constexpr int per_load = 16 / static_cast<int>(sizeof(Word));
#pragma unroll Unroll
  for (int s = from; s < to; ++s) {
    Word w[per_load];
    gd::unpack_words(loads[s * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
#pragma unroll
      for (int k = 0; k < Owned; ++k) counts[k] = gd::plus_carry(counts[k], w[e], addend[k]);
    }
  }
}

// radix_rank_sort_kernel's body for u32 keys without values, ascending, Owned keys a warp; with
// Probe, thread 0 of each block writes clock64() at each phase to probe[block * 8 + 0..5], and
// %globaltimer at entry and exit to [6] and [7].
template <int Owned, bool Probe, int Unroll = 4>
__global__ void __launch_bounds__(1024) rank_copy(const args_t a, long long* probe) {
  using word_t = std::uint32_t;
  constexpr int per_load = 4;
  constexpr int slice = 32 * per_load;
  constexpr int owned = Owned;
  extern __shared__ __align__(16) unsigned char smem[];
  word_t* sort_values = reinterpret_cast<word_t*>(smem);
  long long t[stamps] = {};
  unsigned long long g0 = 0;
  if (Probe && threadIdx.x == 0) {
    g0 = global_ns();
    t[0] = clock64();
  }
  const int n = static_cast<int>(a.n);
  const int slices = (n + slice - 1) / slice;
  const word_t window = gd::rank_sort_window<word_t>(a.begin_bit, a.end_bit);
  const unsigned* keys_in = a.keys_in;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int first = (static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x / 32) +
                     static_cast<int>(threadIdx.x / 32)) * owned;
  unsigned key = 0;
  const int i = first + lane;
  if (lane < owned && i < n) key = keys_in[i];
  constexpr int fill_batch = 4;
  const int padded = slices * slice;
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
    word_t w[fill_batch];
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      const int j = base + r * stride;
      w[r] = ~word_t(0);
      if (j < n) w[r] = gd::rank_sort_value<unsigned, false>(keys_in[j], window);
    }
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
    }
  }
  if (Probe && threadIdx.x == 0) t[1] = clock64();
  __syncthreads();
  if (Probe && threadIdx.x == 0) t[2] = clock64();

  if (first >= n) return;
  word_t mine[owned];
  word_t not_mine[owned];
  word_t neg_mine[owned];
  unsigned greater[owned];
  unsigned at_least[owned];
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
  const int home = first / slice;
  count_carries_u<Unroll>(loads, 0, home, not_mine, greater);
  {
    word_t w[per_load];
    gd::unpack_words(loads[home * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
      const int j = (home * 32 + lane) * per_load + e;
#pragma unroll
      for (int k = 0; k < owned; ++k) {
        before[k] += (w[e] < mine[k] || (w[e] == mine[k] && j < first + k)) ? 1u : 0u;
      }
    }
  }
  count_carries_u<Unroll>(loads, home + 1, slices, neg_mine, at_least);
  const auto earlier = static_cast<unsigned>(home * per_load);
  const auto later = static_cast<unsigned>((slices - home - 1) * per_load);
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    before[k] += earlier - greater[k] + (mine[k] == 0 ? 0u : later - at_least[k]);
  }
  if (Probe && threadIdx.x == 0) t[3] = clock64();
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    const unsigned r = gpuprim::warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  if (Probe && threadIdx.x == 0) t[4] = clock64();
  if (lane < owned && i < n) a.keys_out[rank] = key;
  if (Probe && threadIdx.x == 0) {
    t[5] = clock64();
    long long* p = probe + blockIdx.x * 8;
    for (int s = 0; s < stamps; ++s) p[s] = t[s];
    p[6] = static_cast<long long>(g0);
    p[7] = static_cast<long long>(global_ns());
  }
}


// The candidate for small n: the counting unrolled over at most MaxSlices slices, every slice's
// 16-byte load issued first, one count per owned key (and slice parity) whose addend is chosen per
// slice: ~m before the home slice (carries when w > m), 0 - m after it (carries when w >= m; m == 0
// counts nothing there and `later` is left out, as the library does).
template <int Owned, int MaxSlices, bool Probe>
__global__ void __launch_bounds__(256) rank_small(const args_t a, long long* probe) {
  using word_t = std::uint32_t;
  constexpr int per_load = 4;
  constexpr int slice = 32 * per_load;
  constexpr int owned = Owned;
  extern __shared__ __align__(16) unsigned char smem[];
  word_t* sort_values = reinterpret_cast<word_t*>(smem);
  long long t[stamps] = {};
  unsigned long long g0 = 0;
  if (Probe && threadIdx.x == 0) {
    g0 = global_ns();
    t[0] = clock64();
  }
  const int n = static_cast<int>(a.n);
  const int slices = (n + slice - 1) / slice;
  const word_t window = gd::rank_sort_window<word_t>(a.begin_bit, a.end_bit);
  const unsigned* keys_in = a.keys_in;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int first = (static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x / 32) +
                     static_cast<int>(threadIdx.x / 32)) * owned;
  unsigned key = 0;
  const int i = first + lane;
  if (lane < owned && i < n) key = keys_in[i];
  constexpr int fill_batch = 4;
  const int padded = slices * slice;
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
    word_t w[fill_batch];
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      const int j = base + r * stride;
      w[r] = ~word_t(0);
      if (j < n) w[r] = gd::rank_sort_value<unsigned, false>(keys_in[j], window);
    }
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
    }
  }
  if (Probe && threadIdx.x == 0) t[1] = clock64();
  __syncthreads();
  if (Probe && threadIdx.x == 0) t[2] = clock64();
  if (first >= n) return;
  const uint4* loads = reinterpret_cast<const uint4*>(sort_values) + lane;
  uint4 v[MaxSlices];
#pragma unroll
  for (int s = 0; s < MaxSlices; ++s) {
    if (s < slices) v[s] = loads[s * 32];
  }
  word_t mine[owned];
  word_t not_mine[owned];
  word_t neg_mine[owned];
  unsigned above[2][owned];
  unsigned before[owned];
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    mine[k] = sort_values[first + k];
    not_mine[k] = static_cast<word_t>(~mine[k]);
    neg_mine[k] = static_cast<word_t>(word_t(0) - mine[k]);
    above[0][k] = 0;
    above[1][k] = 0;
    before[k] = 0;
  }
  const int home = first / slice;
#pragma unroll
  for (int s = 0; s < MaxSlices; ++s) {
    if (s < slices && s != home) {
      word_t w[per_load];
      gd::unpack_words(v[s], w);
#pragma unroll
      for (int k = 0; k < owned; ++k) {
        const word_t add = s < home ? not_mine[k] : neg_mine[k];
#pragma unroll
        for (int e = 0; e < per_load; ++e) above[s & 1][k] = gd::plus_carry(above[s & 1][k], w[e], add);
      }
    }
  }
  {
    word_t w[per_load];
    gd::unpack_words(loads[home * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
      const int j = (home * 32 + lane) * per_load + e;
#pragma unroll
      for (int k = 0; k < owned; ++k) {
        before[k] += (w[e] < mine[k] || (w[e] == mine[k] && j < first + k)) ? 1u : 0u;
      }
    }
  }
  const auto earlier = static_cast<unsigned>(home * per_load);
  const auto later = static_cast<unsigned>((slices - home - 1) * per_load);
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    before[k] += earlier + (mine[k] == 0 ? 0u : later) - above[0][k] - above[1][k];
  }
  if (Probe && threadIdx.x == 0) t[3] = clock64();
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    const unsigned r = gpuprim::warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  if (Probe && threadIdx.x == 0) t[4] = clock64();
  if (lane < owned && i < n) a.keys_out[rank] = key;
  if (Probe && threadIdx.x == 0) {
    t[5] = clock64();
    long long* p = probe + blockIdx.x * 8;
    for (int s2 = 0; s2 < stamps; ++s2) p[s2] = t[s2];
    p[6] = static_cast<long long>(g0);
    p[7] = static_cast<long long>(global_ns());
  }
}

// Branch-free counting for small n (rank_small2): shared memory padded to MaxSlices slices of all
// ones, every slice loaded up front, one addend a slice (~m before the home slice, 0 - m from it
// on: carries when w > m, w >= m), so that the home slice needs only a correction for the keys
// before the owned one that equal it; m == 0 considers only the slices before home.
template <int Owned, int MaxSlices, bool Probe>
__global__ void __launch_bounds__(256) rank_small2(const args_t a, long long* probe) {
  using word_t = std::uint32_t;
  constexpr int per_load = 4;
  constexpr int slice = 32 * per_load;
  constexpr int owned = Owned;
  extern __shared__ __align__(16) unsigned char smem[];
  word_t* sort_values = reinterpret_cast<word_t*>(smem);
  long long t[stamps] = {};
  unsigned long long g0 = 0;
  if (Probe && threadIdx.x == 0) {
    g0 = global_ns();
    t[0] = clock64();
  }
  const int n = static_cast<int>(a.n);
  const word_t window = gd::rank_sort_window<word_t>(a.begin_bit, a.end_bit);
  const unsigned* keys_in = a.keys_in;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int first = (static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x / 32) +
                     static_cast<int>(threadIdx.x / 32)) * owned;
  unsigned key = 0;
  const int i = first + lane;
  if (lane < owned && i < n) key = keys_in[i];
  constexpr int padded = MaxSlices * slice;
  const int stride = static_cast<int>(blockDim.x);
  {
    constexpr int fill_batch = 4;
    for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
      word_t w[fill_batch];
#pragma unroll
      for (int r = 0; r < fill_batch; ++r) {
        const int j = base + r * stride;
        w[r] = ~word_t(0);
        if (j < n) w[r] = gd::rank_sort_value<unsigned, false>(keys_in[j], window);
      }
#pragma unroll
      for (int r = 0; r < fill_batch; ++r) {
        if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
      }
    }
  }
  if (Probe && threadIdx.x == 0) t[1] = clock64();
  __syncthreads();
  if (Probe && threadIdx.x == 0) t[2] = clock64();
  if (first >= n) return;
  const uint4* loads = reinterpret_cast<const uint4*>(sort_values) + lane;
  uint4 v[MaxSlices];
#pragma unroll
  for (int s = 0; s < MaxSlices; ++s) v[s] = loads[s * 32];
  const int home = first / slice;
  const uint4 hv = loads[home * 32];
  word_t mine[owned];
  word_t not_mine[owned];
  word_t neg_mine[owned];
  unsigned above[2][owned];
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    mine[k] = sort_values[first + k];
    not_mine[k] = static_cast<word_t>(~mine[k]);
    neg_mine[k] = static_cast<word_t>(word_t(0) - mine[k]);
    above[0][k] = 0;
    above[1][k] = 0;
  }
#pragma unroll
  for (int s = 0; s < MaxSlices; ++s) {
    const bool left = s < home;
    word_t w[per_load];
    gd::unpack_words(v[s], w);
#pragma unroll
    for (int k = 0; k < owned; ++k) {
      const word_t add = left ? not_mine[k] : neg_mine[k];
#pragma unroll
      for (int e = 0; e < per_load; ++e) above[s & 1][k] = gd::plus_carry(above[s & 1][k], w[e], add);
    }
  }
  unsigned before[owned];
  {
    word_t w[per_load];
    gd::unpack_words(hv, w);
    const int j0 = (home * 32 + lane) * per_load;
#pragma unroll
    for (int k = 0; k < owned; ++k) {
      unsigned corr = 0;
#pragma unroll
      for (int e = 0; e < per_load; ++e) corr += (w[e] == mine[k] && j0 + e < first + k) ? 1u : 0u;
      const unsigned considered = static_cast<unsigned>((mine[k] == 0 ? home : MaxSlices) * per_load);
      before[k] = considered - above[0][k] - above[1][k] + corr;
    }
  }
  if (Probe && threadIdx.x == 0) t[3] = clock64();
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < owned; ++k) {
    const unsigned r = gpuprim::warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  if (Probe && threadIdx.x == 0) t[4] = clock64();
  if (lane < owned && i < n) a.keys_out[rank] = key;
  if (Probe && threadIdx.x == 0) {
    t[5] = clock64();
    long long* p = probe + blockIdx.x * 8;
    for (int s2 = 0; s2 < stamps; ++s2) p[s2] = t[s2];
    p[6] = static_cast<long long>(g0);
    p[7] = static_cast<long long>(global_ns());
  }
}

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1024;
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t copies = std::size_t(4) * prop.l2CacheSize / (n * 4) + 1;
  unsigned *pool, *out;
  long long* probe;
  CK(cudaMalloc(&pool, copies * n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&probe, 4096 * 8 * sizeof(long long)));
  std::vector<unsigned> h(copies * n);
  std::mt19937 g(9);
  for (auto& x : h) x = g();
  CK(cudaMemcpy(pool, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const std::size_t smem = gd::rank_sort_smem_bytes<unsigned>(n);
  constexpr auto lib = gd::radix_rank_sort_kernel<unsigned, false, false, args_t>;
  const unsigned threads = gd::rank_sort_block_threads(n, prop.multiProcessorCount);
  auto grid_for = [&](int owned) { return unsigned((n + threads / 32 * owned - 1) / (threads / 32 * owned)); };
  if (smem > 48 * 1024) {
    printf("n too large for this program (%zu B of shared memory)\n", smem);
    return 1;
  }
  printf("%s: %zu keys, blocks of %u threads (4 keys a warp: %u blocks), %zu B of shared memory\n", prop.name, n,
         threads, grid_for(4), smem);
  const char* names[] = {"empty", "lib", "copy2 u4", "b4", "b2", "b1",
                         "probe lib", "probe b2", "probe b1"};
  constexpr int variants = 9;
  constexpr int probes = 3;
  const int probe_owned[probes] = {4, 2, 1};
  constexpr int max_slices = 8;
  if (n > std::size_t(max_slices) * 128) {
    printf("the small kernels take up to %d keys\n", max_slices * 128);
    return 1;
  }
  const std::size_t small_smem = std::size_t(max_slices) * 128 * 4;
  auto run = [&](int q, const unsigned* in) {
    args_t a{};
    a.keys_in = in;
    a.keys_out = out;
    a.n = n;
    a.begin_bit = 0;
    a.end_bit = 32;
    switch (q) {
      case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
      case 1: lib<<<grid_for(4), threads, smem, s>>>(a); break;
      case 2: rank_copy<2, false, 4><<<grid_for(2), threads, smem, s>>>(a, probe); break;
      case 3: rank_small2<4, max_slices, false><<<grid_for(4), threads, small_smem, s>>>(a, probe); break;
      case 4: rank_small2<2, max_slices, false><<<grid_for(2), threads, small_smem, s>>>(a, probe); break;
      case 5: rank_small2<1, max_slices, false><<<grid_for(1), threads, small_smem, s>>>(a, probe); break;
      case 6: rank_copy<4, true, 4><<<grid_for(4), threads, smem, s>>>(a, probe); break;
      case 7: rank_small2<2, max_slices, true><<<grid_for(2), threads, small_smem, s>>>(a, probe); break;
      case 8: rank_small2<1, max_slices, true><<<grid_for(1), threads, small_smem, s>>>(a, probe); break;
    }
  };
  for (int q = 1; q < variants; ++q) {
    CK(cudaMemset(out, 0xff, n * 4));
    run(q, pool + 5 * n);
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    std::vector<unsigned> o(n), ref(h.begin() + 5 * n, h.begin() + 6 * n);
    std::sort(ref.begin(), ref.end());
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    if (o != ref) {
      printf("MISMATCH %s\n", names[q]);
      return 1;
    }
  }
  std::size_t c = 0;
  std::vector<float> t[variants];
  std::vector<double> phase[probes][stamps - 1], span_ns[probes], clock_ghz[probes], skew_ns[probes];
  std::vector<long long> hp(grid_for(1) * 8);
  for (int i = 0; i < rounds; ++i) {
    for (int r = 0; r < variants; ++r) {
      const int q = (r + i) % variants;
      const float us = event_us(s, e0, e1, [&] { run(q, pool + (c++ % copies) * n); });
      if (i < 200) continue;
      t[q].push_back(us);
      if (q >= variants - probes && i % 10 == 0) {
        const int v = q - (variants - probes);
        const unsigned pblocks = grid_for(probe_owned[v]);
        CK(cudaMemcpyAsync(hp.data(), probe, pblocks * 8 * sizeof(long long), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        long long first_in = hp[6], last_out = hp[7], last_in = hp[6];
        for (unsigned b = 0; b < pblocks; ++b) {
          const long long* p = &hp[b * 8];
          for (int k = 0; k + 1 < stamps; ++k) phase[v][k].push_back(double(p[k + 1] - p[k]));
          first_in = std::min(first_in, p[6]);
          last_in = std::max(last_in, p[6]);
          last_out = std::max(last_out, p[7]);
          if (p[7] > p[6]) clock_ghz[v].push_back(double(p[5] - p[0]) / double(p[7] - p[6]));
        }
        span_ns[v].push_back(double(last_out - first_in));
        skew_ns[v].push_back(double(last_in - first_in));
      }
    }
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  std::vector<float> m(variants);
  for (int q = 0; q < variants; ++q) {
    std::sort(t[q].begin(), t[q].end());
    m[q] = t[q][t[q].size() / 2];
    printf("  %-10s median %6.2f us (empty + %5.2f)  p10 %6.2f  p90 %6.2f\n", names[q], m[q], m[q] - m[0],
           t[q][t[q].size() / 10], t[q][t[q].size() * 9 / 10]);
  }
  const char* pn[] = {"load+fill", "barrier", "count", "warp sums", "store"};
  for (int v = 0; v < probes; ++v) {
    printf("%s, thread 0 of each block, medians over blocks and calls (cycles):", names[variants - probes + v]);
    for (int k = 0; k + 1 < stamps; ++k) printf("  %s %.0f", pn[k], med(phase[v][k]));
    printf("\n  kernel span (first block in .. last block out, globaltimer) %.0f ns; block start skew %.0f ns;"
           " cycles/ns over a block %.2f\n",
           med(span_ns[v]), med(skew_ns[v]), med(clock_ghz[v]));
  }
  return 0;
}
