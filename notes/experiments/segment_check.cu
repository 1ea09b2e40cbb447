// Session 46: the library's segment sort (radix_segment_sort.cuh) against CUB, bitwise, and its
// time against the four passes (radix_segment_override 0) and CUB (int count), same process,
// 7 rounds after one warm-up, medians. Inputs made on the device: uniform, keys in [0, 2^20)
// (skewed: the plan keeps four passes), "correlated" (position 3 equal to position 2, flat digit
// counts: every segment over capacity, the fix-up), and uniform with the path forced at 6M.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -o build/exp/segment_check
//        notes/experiments/segment_check.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_profiler_api.h>
#include <gpuprim/radix_sort.cuh>

#include "check.cuh"

enum dist { uniform, bits20, correlated };

__global__ void make(unsigned* k, unsigned* v, std::size_t n, dist d, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    unsigned key = static_cast<unsigned>(z);
    if (d == bits20) key >>= 12;
    if (d == correlated) key = (key & 0x00FFFFFFu) | ((key << 8) & 0xFF000000u);
    k[i] = key;
    v[i] = static_cast<unsigned>(i);
  }
}

template <class Key, bool Desc>
cudaError_t ours(void* t, std::size_t& b, const Key* k, Key* ko, const unsigned* v, unsigned* vo, std::size_t n) {
  return Desc ? gpuprim::radix_sort_pairs_descending(t, b, k, ko, v, vo, n)
              : gpuprim::radix_sort_pairs(t, b, k, ko, v, vo, n);
}
template <class Key, bool Desc>
cudaError_t cubs(void* t, std::size_t& b, const Key* k, Key* ko, const unsigned* v, unsigned* vo, std::size_t n) {
  return Desc ? cub::DeviceRadixSort::SortPairsDescending(t, b, k, ko, v, vo, static_cast<int>(n))
              : cub::DeviceRadixSort::SortPairs(t, b, k, ko, v, vo, static_cast<int>(n));
}

template <class Key, bool Desc>
void one(const char* name, std::size_t n, dist d, int force, unsigned* k, unsigned* v, unsigned* ko, unsigned* vo,
         unsigned* kc, unsigned* vc, void* temp, std::size_t tb, bool timed) {
  make<<<1024, 256>>>(k, v, n, d, 46 + n);
  CK(cudaGetLastError());
  const Key* kk = reinterpret_cast<const Key*>(k);
  Key* kko = reinterpret_cast<Key*>(ko);
  Key* kkc = reinterpret_cast<Key*>(kc);
  std::size_t b = tb;
  CK((cubs<Key, Desc>(temp, b, kk, kkc, v, vc, n)));
  CK(cudaMemset(ko, 0xA5, n * 4));
  CK(cudaMemset(vo, 0xA5, n * 4));
  gpuprim::detail::radix_segment_override.store(force);
  CK((ours<Key, Desc>(temp, tb, kk, kko, v, vo, n)));
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> a(n), c(n);
  CK(cudaMemcpy(a.data(), ko, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c.data(), kc, n * 4, cudaMemcpyDeviceToHost));
  bool ok = std::memcmp(a.data(), c.data(), n * 4) == 0;
  CK(cudaMemcpy(a.data(), vo, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c.data(), vc, n * 4, cudaMemcpyDeviceToHost));
  ok = ok && std::memcmp(a.data(), c.data(), n * 4) == 0;
  std::printf("%-28s n=%zu force=%d %s", name, n, force, ok ? "ok" : "MISMATCH");
  if (timed) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t[3];
    for (int r = 0; r < 8; ++r) {
      gpuprim::detail::radix_segment_override.store(force);
      const float a0 = event_us(0, e0, e1, [&] { CK((ours<Key, Desc>(temp, tb, kk, kko, v, vo, n))); });
      gpuprim::detail::radix_segment_override.store(0);
      const float a1 = event_us(0, e0, e1, [&] { CK((ours<Key, Desc>(temp, tb, kk, kko, v, vo, n))); });
      const float a2 = event_us(0, e0, e1, [&] { std::size_t bb = tb; CK((cubs<Key, Desc>(temp, bb, kk, kkc, v, vc, n))); });
      if (r == 0) continue;
      t[0].push_back(a0); t[1].push_back(a1); t[2].push_back(a2);
    }
    for (auto& x : t) std::sort(x.begin(), x.end());
    const float m0 = t[0][3], m1 = t[1][3], m2 = t[2][3];
    std::printf(" | this %.1f four-pass %.1f cub %.1f | this/four %.3f cub/this %.3f cub/four %.3f", m0, m1, m2,
                m0 / m1, m2 / m0, m2 / m1);
  }
  std::printf("\n");
  gpuprim::detail::radix_segment_override.store(-1);
}

// The session 46 prototype's segment kernel (hybrid.cu's local_sort3, one segment a block), to
// compare with the library's on the same data (`ab` mode).
template <int T, int IPT>
__global__ void __launch_bounds__(T, 1024 / T) proto_sort(const unsigned* kin, const unsigned* vin, unsigned* kout,
                                                          unsigned* vout, const std::size_t* starts) {
  constexpr int CAP = T * IPT;
  using rank_t = gpuprim::block_radix_rank<T, IPT, 8>;
  __shared__ typename rank_t::temp_storage rs;
  extern __shared__ unsigned long long dynw[];
  unsigned long long* sw = dynw;
  const std::size_t b = starts[blockIdx.x], e = starts[blockIdx.x + 1];
  const int cnt = static_cast<int>(e - b);
  if (cnt == 0 || cnt > CAP) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned long long w[IPT];
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = warp * 32 * IPT + i * 32 + lane;
    const unsigned kk = p < cnt ? kin[b + p] : 0xFFFFFFFFu;
    const unsigned vv = p < cnt ? vin[b + p] : 0u;
    w[i] = (static_cast<unsigned long long>(vv) << 32) | kk;
  }
  auto slot = [](int p) { return p + p / 32; };
  for (int pass = 0; pass < 2; ++pass) {
    unsigned r[IPT];
    rank_t(rs).rank([&](int i) { return (static_cast<unsigned>(w[i]) >> (8 * pass)) & 0xFFu; }, r);
#pragma unroll
    for (int i = 0; i < IPT; ++i) sw[slot(r[i])] = w[i];
    __syncthreads();
    if (pass == 0) {
#pragma unroll
      for (int i = 0; i < IPT; ++i) w[i] = sw[slot(warp * 32 * IPT + i * 32 + lane)];
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = i * T + threadIdx.x;
    if (p < cnt) {
      const unsigned long long x = sw[slot(p)];
      kout[b + p] = static_cast<unsigned>(x);
      vout[b + p] = static_cast<unsigned>(x >> 32);
    }
  }
}

// hybrid.cu's local_sort3, verbatim (its runtime pass count and the third pass's branch).
template <int T, int IPT, int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks) local_sort3(const unsigned* kin, const unsigned* vin, unsigned* kout,
                                                            unsigned* vout, const std::size_t* starts, int K,
                                                            int* overflow) {
  constexpr int CAP = T * IPT;
  using rank_t = gpuprim::block_radix_rank<T, IPT, 8>;
  __shared__ typename rank_t::temp_storage rs;
  extern __shared__ unsigned long long dynw[];
  unsigned long long* sw = dynw;  // CAP + CAP / 32 words
  const unsigned s0 = blockIdx.x * K;
  const std::size_t b = starts[s0], e = starts[min(s0 + K, gpuprim::detail::radix_segments)];
  const int cnt = static_cast<int>(e - b);
  if (cnt == 0) return;
  if (cnt > CAP) {
    if (threadIdx.x == 0) atomicAdd(overflow, 1);
    return;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned long long w[IPT];
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = warp * 32 * IPT + i * 32 + lane;
    const unsigned kk = p < cnt ? kin[b + p] : 0xFFFFFFFFu;
    const unsigned vv = p < cnt ? vin[b + p] : 0u;
    w[i] = (static_cast<unsigned long long>(vv) << 32) | kk;
  }
  const bool multi = K > 1 && (kin[b] >> 16) != (kin[e - 1] >> 16);
  const int passes = multi ? 3 : 2;
  auto slot = [](int p) { return p + p / 32; };
  for (int pass = 0; pass < passes; ++pass) {
    unsigned r[IPT];
    if (pass < 2) {
      rank_t(rs).rank([&](int i) { return (static_cast<unsigned>(w[i]) >> (8 * pass)) & 0xFFu; }, r);
    } else {
      rank_t(rs).rank([&](int i) { return min((static_cast<unsigned>(w[i]) >> 16) - s0, 255u); }, r);
    }
#pragma unroll
    for (int i = 0; i < IPT; ++i) sw[slot(r[i])] = w[i];
    __syncthreads();
    if (pass + 1 < passes) {
#pragma unroll
      for (int i = 0; i < IPT; ++i) w[i] = sw[slot(warp * 32 * IPT + i * 32 + lane)];
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = i * T + threadIdx.x;
    if (p < cnt) {
      const unsigned long long x = sw[slot(p)];
      kout[b + p] = static_cast<unsigned>(x);
      vout[b + p] = static_cast<unsigned>(x >> 32);
    }
  }
}

int main(int argc, char** argv) {
  const bool prof = argc > 1 && std::strcmp(argv[1], "prof") == 0;  // 2^28 u32/u32 only, for nsys
  const std::size_t nmax = std::size_t(380) << 20;
  unsigned *k, *v, *ko, *vo, *kc, *vc;
  for (unsigned** p : {&k, &v, &ko, &vo, &kc, &vc}) CK(cudaMalloc(p, nmax * 4));
  std::size_t tb = 0, t1 = 0;
  CK(gpuprim::radix_sort_pairs(nullptr, tb, k, ko, v, vo, nmax));
  CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, k, ko, v, vo, static_cast<int>(nmax)));
  tb = std::max(tb, t1);
  void* temp;
  CK(cudaMalloc(&temp, tb));
  if (argc > 1 && std::strcmp(argv[1], "ab") == 0) {
    // After a sort by the segment path: the library's segment kernel again on its own (sorted)
    // output, in place, against the prototype's kernel in place and out of place; the starts from
    // the library's bounds kernel. Events, 9 rounds, medians.
    const std::size_t n = std::size_t(1) << 28;
    one<unsigned, false>("u32/u32 uniform", n, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, false);
    if (argc > 2) {  // `ab mt`: keys from mt19937 on the host (the prototype's), sorted by the path
      std::vector<unsigned> h(n);
      std::mt19937 g(46);
      for (auto& x : h) x = g();
      CK(cudaMemcpy(k, h.data(), n * 4, cudaMemcpyHostToDevice));
      CK(gpuprim::radix_sort_pairs(temp, tb, k, ko, v, vo, n));
      std::printf("mt19937 keys\n");
    }
    std::size_t* starts;
    unsigned *flag, *count, *list;
    CK(cudaMalloc(&starts, (gpuprim::detail::radix_segments + 1) * 8));
    CK(cudaMalloc(&flag, 4)); CK(cudaMalloc(&count, 4)); CK(cudaMalloc(&list, gpuprim::detail::radix_segments * 4));
    const unsigned one_ = 1;
    CK(cudaMemcpy(flag, &one_, 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(count, 0, 4));
    if (argc > 3) {  // `ab x top`: the kernels on data sorted by the top 16 bits only
      gpuprim::detail::radix_segment_override.store(0);
      CK(gpuprim::radix_sort_pairs(temp, tb, k, ko, v, vo, n, 16, 32));
      std::printf("top-16 sorted input\n");
    }
    gpuprim::detail::radix_segment_bounds_kernel<><<<257, 256>>>(ko, n, 0u, flag, starts);
    constexpr auto lib = gpuprim::detail::radix_segment_sort_kernel<256, 18, 4>;
    constexpr int smem = (4608 + 144) * 8;
    CK(cudaFuncSetAttribute(lib, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 16384));
    CK(cudaFuncSetAttribute(proto_sort<256, 18>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 16384));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaFuncSetAttribute(local_sort3<256, 18, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 16384));
    CK(cudaFuncSetAttribute(local_sort3<384, 12, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 16384));
    CK(cudaFuncSetAttribute(proto_sort<384, 12>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 16384));
    std::vector<float> t[6];
    for (int r = 0; r < 10; ++r) {
      t[2].push_back(event_us(0, e0, e1, [&] { proto_sort<256, 18><<<65536, 256, smem>>>(ko, vo, kc, vc, starts); }));
      t[3].push_back(event_us(0, e0, e1, [&] { local_sort3<256, 18, 4><<<65536, 256, smem>>>(ko, vo, kc, vc, starts, 1, (int*)count); }));
      t[4].push_back(event_us(0, e0, e1, [&] { proto_sort<384, 12><<<65536, 384, smem>>>(ko, vo, kc, vc, starts); }));
      t[5].push_back(event_us(0, e0, e1, [&] { local_sort3<384, 12, 2><<<65536, 384, smem>>>(ko, vo, kc, vc, starts, 1, (int*)count); }));
      if (r == 9) {
        t[0].push_back(event_us(0, e0, e1, [&] { lib<<<132 * 4, 256, smem>>>(ko, vo, 0u, flag, starts, count, list); }));
        t[1].push_back(event_us(0, e0, e1, [&] { proto_sort<256, 18><<<65536, 256, smem>>>(ko, vo, ko, vo, starts); }));
      }
    }
    CK(cudaDeviceSynchronize());
    for (auto& x : t) std::sort(x.begin(), x.end());
    std::printf("2^28 segment kernels: prototype out of place (median of 10) %.1f; then once each: library in place %.1f,"
                " prototype in place (its input now sorted) %.1f us\n", t[2][5], t[0][0], t[1][0]);
    std::printf("  out of place, medians: hybrid.cu's local_sort3<256, 18, 4> %.1f, proto_sort<384, 12> %.1f,"
                " local_sort3<384, 12, 2> %.1f us\n", t[3][5], t[4][5], t[5][5]);
    return 0;
  }
  if (prof) {  // one sort each way after the check: ncu --clock-control none, time per kernel
    const std::size_t n = std::size_t(1) << 28;
    one<unsigned, false>("u32/u32 uniform", n, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, false);
    CK(cudaProfilerStart());
    CK(gpuprim::radix_sort_pairs(temp, tb, k, ko, v, vo, n));
    gpuprim::detail::radix_segment_override.store(0);
    CK(gpuprim::radix_sort_pairs(temp, tb, k, ko, v, vo, n));
    CK(cudaDeviceSynchronize());
    CK(cudaProfilerStop());
    return 0;
  }
  // Correctness of the forced path at a small size, and the fix-up.
  one<unsigned, false>("u32 uniform forced", 6000011, uniform, 1, k, v, ko, vo, kc, vc, temp, tb, false);
  one<unsigned, false>("u32 correlated forced", 6000011, correlated, 1, k, v, ko, vo, kc, vc, temp, tb, false);
  one<int, true>("i32 desc uniform forced", 6000011, uniform, 5, k, v, ko, vo, kc, vc, temp, tb, false);
  // By size.
  for (std::size_t n : {std::size_t(40) << 20, std::size_t(56) << 20, std::size_t(1) << 26, std::size_t(100) << 20,
                        std::size_t(1) << 27, std::size_t(180) << 20, std::size_t(1) << 28, std::size_t(300) << 20,
                        std::size_t(370) << 20}) {
    one<unsigned, false>("u32/u32 uniform", n, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  }
  one<unsigned, true>("u32/u32 desc uniform", std::size_t(1) << 28, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  one<int, false>("i32/u32 uniform", std::size_t(1) << 28, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  one<int, true>("i32/u32 desc uniform", std::size_t(100) << 20, uniform, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  one<unsigned, false>("u32/u32 bits20", std::size_t(1) << 28, bits20, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  one<unsigned, false>("u32/u32 correlated", std::size_t(1) << 26, correlated, -1, k, v, ko, vo, kc, vc, temp, tb, true);
  return 0;
}
