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
//   b4/b2/b1     rank_copy with the library's count_before_unrolled (the branch-free counting
//                over shared memory padded to 8 slices; the session's rank_small2 before the
//                library took it), 4, 2 or 1 keys a warp (b2 is what the library took)
//   probe ...    the same with the stamps (per block: entry, keys in shared memory, barrier
//                passed, counted, summed, stored; thread 0)
// `./small_phases [rounds] [n]` (n up to 1024: the padded kernels' 8 slices)
// After its runs the file was tidied (helpers in check.cuh, one kernel template, the library's
// count_before_unrolled in place of its identical local copy; session 54: whole_u32_sort):
// compiled, not run again.
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

// Thread 0 of each block stamps clock64() at the phases (entry, keys in shared memory, barrier
// passed, counted, summed, stored) and %globaltimer at entry and exit, into probe[block * 8 ...].
template <bool Probe>
struct stamp_log {
  long long t[stamps] = {};
  unsigned long long g0 = 0;
  __device__ void begin() {
    if (Probe && threadIdx.x == 0) {
      g0 = global_ns();
      t[0] = clock64();
    }
  }
  __device__ void mark(int phase) {
    if (Probe && threadIdx.x == 0) t[phase] = clock64();
  }
  __device__ void finish(long long* probe) {
    if (Probe && threadIdx.x == 0) {
      t[5] = clock64();
      long long* p = probe + blockIdx.x * 8;
      for (int s = 0; s < stamps; ++s) p[s] = t[s];
      p[6] = static_cast<long long>(g0);
      p[7] = static_cast<long long>(global_ns());
    }
  }
};

// The kernel's fill: the sort values of all n keys (ascending u32: the keys themselves, masked)
// and all-ones padding up to `padded`, loads 4 a thread in flight.
__device__ __forceinline__ void fill_sort_values(const args_t& a, std::uint32_t* sort_values, int padded) {
  const int n = static_cast<int>(a.n);
  const std::uint32_t window = gd::rank_sort_window<std::uint32_t>(a.begin_bit, a.end_bit);
  constexpr int fill_batch = 4;
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < padded; base += fill_batch * stride) {
    std::uint32_t w[fill_batch];
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      const int j = base + r * stride;
      w[r] = ~0u;
      if (j < n) w[r] = gd::rank_sort_value<unsigned, false>(a.keys_in[j], window);
    }
#pragma unroll
    for (int r = 0; r < fill_batch; ++r) {
      if (base + r * stride < padded) sort_values[base + r * stride] = w[r];
    }
  }
}

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

// f5798e1's counting (the library's count_before) with the unroll factor as a parameter.
template <int Unroll, int Owned>
__device__ void count_general(const std::uint32_t* sort_values, int slices, int home, int first, int lane,
                              const std::uint32_t (&mine)[Owned], unsigned (&before)[Owned]) {
  using word_t = std::uint32_t;
  constexpr int per_load = 4;
  word_t not_mine[Owned];
  word_t neg_mine[Owned];
  unsigned greater[Owned];
  unsigned at_least[Owned];
#pragma unroll
  for (int k = 0; k < Owned; ++k) {
    not_mine[k] = static_cast<word_t>(~mine[k]);
    neg_mine[k] = static_cast<word_t>(word_t(0) - mine[k]);
    greater[k] = 0;
    at_least[k] = 0;
    before[k] = 0;
  }
  const uint4* loads = reinterpret_cast<const uint4*>(sort_values) + lane;
  count_carries_u<Unroll>(loads, 0, home, not_mine, greater);
  {
    word_t w[per_load];
    gd::unpack_words(loads[home * 32], w);
#pragma unroll
    for (int e = 0; e < per_load; ++e) {
      const int j = (home * 32 + lane) * per_load + e;
#pragma unroll
      for (int k = 0; k < Owned; ++k) before[k] += (w[e] < mine[k] || (w[e] == mine[k] && j < first + k)) ? 1u : 0u;
    }
  }
  count_carries_u<Unroll>(loads, home + 1, slices, neg_mine, at_least);
  const auto earlier = static_cast<unsigned>(home * per_load);
  const auto later = static_cast<unsigned>((slices - home - 1) * per_load);
#pragma unroll
  for (int k = 0; k < Owned; ++k) before[k] += earlier - greater[k] + (mine[k] == 0 ? 0u : later - at_least[k]);
}

// The rank sort of u32 keys without values, ascending, Owned keys a warp: f5798e1's counting
// (MaxSlices == 0, the loops unrolled Unroll times) or, with MaxSlices > 0, the branch-free form
// over shared memory padded to MaxSlices slices (the library's count_before_unrolled: b4/b2/b1).
// Rank_small, unrolled over 16 slices with a branch a slice (ptxas sank the loads into the
// branches: counting 1535 / 1360 cycles at 2 / 1 keys a warp), is gone from this file.
template <int Owned, bool Probe, int Unroll = 4, int MaxSlices = 0>
__global__ void __launch_bounds__(MaxSlices > 0 ? 256 : 1024) rank_copy(const args_t a, long long* probe) {
  constexpr int slice = 128;
  extern __shared__ __align__(16) unsigned char smem[];
  auto* sort_values = reinterpret_cast<std::uint32_t*>(smem);
  stamp_log<Probe> log;
  log.begin();
  const int n = static_cast<int>(a.n);
  const int slices = MaxSlices > 0 ? MaxSlices : (n + slice - 1) / slice;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int first = (static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x / 32) +
                     static_cast<int>(threadIdx.x / 32)) * Owned;
  unsigned key = 0;
  const int i = first + lane;
  if (lane < Owned && i < n) key = a.keys_in[i];
  fill_sort_values(a, sort_values, slices * slice);
  log.mark(1);
  __syncthreads();
  log.mark(2);
  if (first >= n) return;
  const int home = first / slice;
  std::uint32_t mine[Owned];
  unsigned before[Owned];
#pragma unroll
  for (int k = 0; k < Owned; ++k) mine[k] = sort_values[first + k];
  if constexpr (MaxSlices > 0) {
    gd::count_before_unrolled<MaxSlices>(sort_values, home, first, lane, mine, before);
  } else {
    count_general<Unroll>(sort_values, slices, home, first, lane, mine, before);
  }
  log.mark(3);
  unsigned rank = 0;
#pragma unroll
  for (int k = 0; k < Owned; ++k) {
    const unsigned r = gpuprim::warp_reduce<unsigned>{}.sum(before[k]);
    if (lane == k) rank = r;
  }
  log.mark(4);
  if (lane < Owned && i < n) a.keys_out[rank] = key;
  log.finish(probe);
}

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1024;
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const key_pool keys(n, 9);
  const std::size_t copies = keys.copies;
  unsigned* pool = keys.data;
  unsigned* out;
  long long* probe;
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&probe, 4096 * 8 * sizeof(long long)));
  const timing_env env;
  cudaStream_t s = env.s;
  cudaEvent_t e0 = env.e0, e1 = env.e1;
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
    const args_t a = whole_u32_sort<args_t>(in, out, n);
    switch (q) {
      case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
      case 1: lib<<<grid_for(4), threads, smem, s>>>(a); break;
      case 2: rank_copy<2, false, 4><<<grid_for(2), threads, smem, s>>>(a, probe); break;
      case 3: rank_copy<4, false, 4, max_slices><<<grid_for(4), threads, small_smem, s>>>(a, probe); break;
      case 4: rank_copy<2, false, 4, max_slices><<<grid_for(2), threads, small_smem, s>>>(a, probe); break;
      case 5: rank_copy<1, false, 4, max_slices><<<grid_for(1), threads, small_smem, s>>>(a, probe); break;
      case 6: rank_copy<4, true, 4><<<grid_for(4), threads, smem, s>>>(a, probe); break;
      case 7: rank_copy<2, true, 4, max_slices><<<grid_for(2), threads, small_smem, s>>>(a, probe); break;
      case 8: rank_copy<1, true, 4, max_slices><<<grid_for(1), threads, small_smem, s>>>(a, probe); break;
    }
  };
  for (int q = 1; q < variants; ++q) {
    if (!sorts_copy(keys, 5, out, s, [&](const unsigned* in) { run(q, in); })) {
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
