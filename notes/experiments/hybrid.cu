// Session 46: a prototype of "fewer passes" for large uniform inputs. Sort u32 keys (or u32/u32
// pairs) by their top 16 bits with gpuprim (two Onesweep passes and the histogram), then sort each
// run of equal top 16 bits in shared memory by the low 16 bits (one read and one write of the
// data instead of two passes). Segment starts by binary search. Checked bitwise against the full
// gpuprim sort; timed against it and CUB, 9 rounds, medians.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -o build/exp/hybrid
//        notes/experiments/hybrid.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <gpuprim/radix_sort.cuh>

#include "check.cuh"

constexpr int kSegBits = 16;
constexpr unsigned kSegs = 1u << kSegBits;

/// starts[v] = first position whose top 16 bits are >= v (v in [0, 65536]).
__global__ void seg_starts(const unsigned* keys, std::size_t n, std::size_t* starts) {
  const unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v > kSegs) return;
  if (v == kSegs) { starts[v] = n; return; }
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if ((keys[mid] >> (32 - kSegBits)) < v) lo = mid + 1; else hi = mid;
  }
  starts[v] = lo;
}

/// Block b sorts segments [b * K, (b + 1) * K) (already in top-16 order, contiguous) by
/// (segment, low 16 bits), stable: two or three rank passes in shared memory.
template <int T, int IPT, bool Pairs>
__global__ void __launch_bounds__(T, 1024 / T) local_sort(const unsigned* kin, const unsigned* vin, unsigned* kout,
                                                unsigned* vout, const std::size_t* starts, int K,
                                                int* overflow) {
  constexpr int CAP = T * IPT;
  using rank_t = gpuprim::block_radix_rank<T, IPT, 8>;
  __shared__ typename rank_t::temp_storage rs;
  extern __shared__ unsigned dyn[];
  unsigned* sk = dyn;
  unsigned* sv = dyn + CAP + CAP / 32;
  const unsigned s0 = blockIdx.x * K;
  const std::size_t b = starts[s0], e = starts[min(s0 + K, kSegs)];
  const int cnt = static_cast<int>(e - b);
  if (cnt == 0) return;
  if (cnt > CAP) {
    if (threadIdx.x == 0) atomicAdd(overflow, 1);
    return;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned k[IPT], v[IPT];
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = warp * 32 * IPT + i * 32 + lane;
    k[i] = p < cnt ? kin[b + p] : 0xFFFFFFFFu;
    if constexpr (Pairs) v[i] = p < cnt ? vin[b + p] : 0u;
  }
  const bool multi = K > 1 && (kin[b] >> 16) != (kin[e - 1] >> 16);
  const int passes = multi ? 3 : 2;
  auto slot = [](int p) { return p + p / 32; };
  for (int pass = 0; pass < passes; ++pass) {
    unsigned r[IPT];
    if (pass < 2) {
      rank_t(rs).rank([&](int i) { return (k[i] >> (8 * pass)) & 0xFFu; }, r);
    } else {
      rank_t(rs).rank([&](int i) { return min((k[i] >> 16) - s0, 255u); }, r);
    }
#pragma unroll
    for (int i = 0; i < IPT; ++i) sk[slot(r[i])] = k[i];
    if constexpr (Pairs) {
#pragma unroll
      for (int i = 0; i < IPT; ++i) sv[slot(r[i])] = v[i];
    }
    __syncthreads();
    if (pass + 1 < passes) {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const int p = warp * 32 * IPT + i * 32 + lane;
        k[i] = sk[slot(p)];
        if constexpr (Pairs) v[i] = sv[slot(p)];
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = i * T + threadIdx.x;
    if (p < cnt) {
      kout[b + p] = sk[slot(p)];
      if constexpr (Pairs) vout[b + p] = sv[slot(p)];
    }
  }
}

/// Version 2: values wait in shared memory from the load to the store (they move once, by the
/// original position each key carries through the passes); keys move through the passes.
template <int T, int IPT, bool Pairs>
__global__ void __launch_bounds__(T, 1024 / T) local_sort2(const unsigned* kin, const unsigned* vin, unsigned* kout,
                                                           unsigned* vout, const std::size_t* starts, int K,
                                                           int* overflow) {
  constexpr int CAP = T * IPT;
  constexpr int PAD = CAP + CAP / 32;
  using rank_t = gpuprim::block_radix_rank<T, IPT, 8>;
  __shared__ typename rank_t::temp_storage rs;
  extern __shared__ unsigned dyn[];
  unsigned* sk = dyn;                                            // PAD keys
  unsigned* sv = dyn + PAD;                                      // CAP values (staged)
  unsigned short* so = reinterpret_cast<unsigned short*>(dyn + PAD + (Pairs ? CAP : 0));  // PAD origins
  const unsigned s0 = blockIdx.x * K;
  const std::size_t b = starts[s0], e = starts[min(s0 + K, kSegs)];
  const int cnt = static_cast<int>(e - b);
  if (cnt == 0) return;
  if (cnt > CAP) {
    if (threadIdx.x == 0) atomicAdd(overflow, 1);
    return;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned k[IPT];
  unsigned short o[IPT];
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = warp * 32 * IPT + i * 32 + lane;
    k[i] = p < cnt ? kin[b + p] : 0xFFFFFFFFu;
    o[i] = static_cast<unsigned short>(p);
  }
  if constexpr (Pairs) {
    for (int p = threadIdx.x; p < cnt; p += T) sv[p] = vin[b + p];
  }
  const bool multi = K > 1 && (kin[b] >> 16) != (kin[e - 1] >> 16);
  const int passes = multi ? 3 : 2;
  auto slot = [](int p) { return p + p / 32; };
  for (int pass = 0; pass < passes; ++pass) {
    unsigned r[IPT];
    if (pass < 2) {
      rank_t(rs).rank([&](int i) { return (k[i] >> (8 * pass)) & 0xFFu; }, r);
    } else {
      rank_t(rs).rank([&](int i) { return min((k[i] >> 16) - s0, 255u); }, r);
    }
#pragma unroll
    for (int i = 0; i < IPT; ++i) {
      sk[slot(r[i])] = k[i];
      if constexpr (Pairs) so[slot(r[i])] = o[i];
    }
    __syncthreads();
    if (pass + 1 < passes) {
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const int p = warp * 32 * IPT + i * 32 + lane;
        k[i] = sk[slot(p)];
        if constexpr (Pairs) o[i] = so[slot(p)];
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    const int p = i * T + threadIdx.x;
    if (p < cnt) {
      kout[b + p] = sk[slot(p)];
      if constexpr (Pairs) vout[b + p] = sv[so[slot(p)]];
    }
  }
}

/// Version 3 (pairs): key and value packed in one 64-bit word through the passes (one shared
/// store and load an item a pass instead of two), MinBlocks blocks an SM.
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
  const std::size_t b = starts[s0], e = starts[min(s0 + K, kSegs)];
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

/// The cost of deciding: a joint histogram of the top 16 bits with global atomics, over every
/// key read (Stride 1) or over one key in Stride, all keys still read (as a fused histogram would).
template <int Stride>
__global__ void hist16(const uint4* keys, std::size_t n4, unsigned* h, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 k = keys[i];
    acc ^= k.x ^ k.y ^ k.z ^ k.w;
    if (Stride == 0) continue;
    if (Stride == 1) {
      atomicAdd(&h[k.x >> 16], 1u); atomicAdd(&h[k.y >> 16], 1u);
      atomicAdd(&h[k.z >> 16], 1u); atomicAdd(&h[k.w >> 16], 1u);
    } else if (i % (Stride / 4) == 0) {
      atomicAdd(&h[k.x >> 16], 1u);
    }
  }
  if (acc == 0x12345678u) *sink = acc;
}

/// > 0: segments a block in every run (the `range` mode: one).
int force_k = 0;

template <bool Pairs, int T, int IPT>
void run(std::size_t n, unsigned* k, unsigned* v, unsigned* ko, unsigned* vo, unsigned* kt, unsigned* vt,
         unsigned* kr, unsigned* vr, void* temp, std::size_t tb, std::size_t* starts, int* overflow) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const std::size_t mean = n / kSegs;
  const int K = force_k > 0 ? force_k : static_cast<int>(std::min<std::size_t>(64, std::max<std::size_t>(1, 3584 / std::max<std::size_t>(mean, 1))));
  const int blocks = static_cast<int>((kSegs + K - 1) / K);
  auto full = [&] {
    if (Pairs) CK(gpuprim::radix_sort_pairs(temp, tb, k, kr, v, vr, n));
    else CK(gpuprim::radix_sort_keys(temp, tb, k, kr, n));
  };
  auto cubsort = [&] {
    std::size_t b = tb;
    if (Pairs) CK(cub::DeviceRadixSort::SortPairs(temp, b, k, ko, v, vo, n));
    else CK(cub::DeviceRadixSort::SortKeys(temp, b, k, ko, n));
  };
  auto top = [&] {
    if (Pairs) CK(gpuprim::radix_sort_pairs(temp, tb, k, kt, v, vt, n, 16, 32));
    else CK(gpuprim::radix_sort_keys(temp, tb, k, kt, n, 16, 32));
  };
  auto bounds = [&] { seg_starts<<<(kSegs + 256) / 256, 256>>>(kt, n, starts); };
  const int smem = (Pairs ? 2 : 1) * (T * IPT + T * IPT / 32) * 4;
  CK(cudaFuncSetAttribute(local_sort<T, IPT, Pairs>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  auto local = [&] { local_sort<T, IPT, Pairs><<<blocks, T, smem>>>(kt, vt, ko, vo, starts, K, overflow); };
  const int pad = T * IPT + T * IPT / 32;
  const int smem2 = pad * 4 + (Pairs ? T * IPT * 4 + pad * 2 : 0);
  CK(cudaFuncSetAttribute(local_sort2<T, IPT, Pairs>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem2));
  const int smem3 = (T * IPT + T * IPT / 32) * 8;
  CK(cudaFuncSetAttribute(local_sort3<T, IPT, 1024 / T>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem3));
  CK(cudaFuncSetAttribute(local_sort3<T, IPT, 1536 / T>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem3));
  auto local3a = [&] { local_sort3<T, IPT, 1024 / T><<<blocks, T, smem3>>>(kt, vt, ko, vo, starts, K, overflow); };
  auto local3b = [&] { local_sort3<T, IPT, 1536 / T><<<blocks, T, smem3>>>(kt, vt, ko, vo, starts, K, overflow); };
  auto local2 = [&] { local_sort2<T, IPT, Pairs><<<blocks, T, smem2>>>(kt, vt, ko, vo, starts, K, overflow); };
  // Check.
  CK(cudaMemset(overflow, 0, 4));
  full();
  CK(cudaMemset(ko, 0xAB, n * 4));
  top();
  bounds();
  local();
  CK(cudaDeviceSynchronize());
  int of = 0;
  CK(cudaMemcpy(&of, overflow, 4, cudaMemcpyDeviceToHost));
  std::vector<unsigned> a(n), c(n);
  CK(cudaMemcpy(a.data(), kr, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c.data(), ko, n * 4, cudaMemcpyDeviceToHost));
  bool ok = a == c;
  if (Pairs) {
    CK(cudaMemcpy(a.data(), vr, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), vo, n * 4, cudaMemcpyDeviceToHost));
    ok = ok && a == c;
  }
  CK(cudaMemset(ko, 0xAB, n * 4));
  CK(cudaMemset(vo, 0xAB, n * 4));
  local2();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(a.data(), kr, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c.data(), ko, n * 4, cudaMemcpyDeviceToHost));
  bool ok2 = a == c;
  if (Pairs) {
    CK(cudaMemcpy(a.data(), vr, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), vo, n * 4, cudaMemcpyDeviceToHost));
    ok2 = ok2 && a == c;
  }
  bool ok3 = true;
  if (Pairs) {
    for (int which = 0; which < 2; ++which) {
      CK(cudaMemset(ko, 0xAB, n * 4));
      CK(cudaMemset(vo, 0xAB, n * 4));
      if (which == 0) local3a(); else local3b();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(a.data(), kr, n * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(c.data(), ko, n * 4, cudaMemcpyDeviceToHost));
      ok3 = ok3 && a == c;
      CK(cudaMemcpy(a.data(), vr, n * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(c.data(), vo, n * 4, cudaMemcpyDeviceToHost));
      ok3 = ok3 && a == c;
    }
  }
  std::vector<float> t[9];
  for (int r = 0; r < 10; ++r) {
    const float tf = event_us(0, e0, e1, full);
    const float tc = event_us(0, e0, e1, cubsort);
    const float th = event_us(0, e0, e1, [&] { top(); bounds(); local(); });
    const float tt = event_us(0, e0, e1, top);
    const float tbd = event_us(0, e0, e1, bounds);
    const float tl = event_us(0, e0, e1, local);
    const float tl2 = event_us(0, e0, e1, local2);
    const float tl3a = Pairs ? event_us(0, e0, e1, local3a) : 0.f;
    const float tl3b = Pairs ? event_us(0, e0, e1, local3b) : 0.f;
    if (r == 0) continue;
    t[7].push_back(tl3a);
    t[8].push_back(tl3b);
    t[6].push_back(tl2);
    t[0].push_back(tf); t[1].push_back(tc); t[2].push_back(th);
    t[3].push_back(tt); t[4].push_back(tbd); t[5].push_back(tl);
  }
  float m[9];
  for (int i = 0; i < 9; ++i) { std::sort(t[i].begin(), t[i].end()); m[i] = t[i][t[i].size() / 2]; }
  std::printf("%s T=%d IPT=%d n=%zu K=%d check=%s overflow=%d | full %.1f cub %.1f hybrid %.1f (top16 %.1f bounds %.1f local %.1f local2 %.1f %s local3 %.1f / %.1f %s)"
              " | hybrid/full %.3f cub/hybrid %.3f cub/full %.3f\n",
              Pairs ? "pairs" : "keys ", T, IPT, n, K, ok ? "ok" : "MISMATCH", of, m[0], m[1], m[2], m[3], m[4], m[5], m[6],
              ok2 ? "ok" : "MISMATCH", m[7], m[8], ok3 ? "ok" : "MISMATCH", m[2] / m[0], m[1] / m[2], m[1] / m[0]);
}

int main(int argc, char** argv) {
  // `range`: pairs only, one segment a block, each capacity at the n whose mean segment is 0.85 of
  // it (session 46: where does the hybrid stop paying?).
  const bool range = argc > 1 && std::string(argv[1]) == "range";
  const std::size_t nmax = range ? std::size_t(513) << 20 : std::size_t(1) << 28;
  unsigned *k, *v, *ko, *vo, *kt, *vt, *kr, *vr;
  for (unsigned** p : {&k, &v, &ko, &vo, &kt, &vt, &kr, &vr}) CK(cudaMalloc(p, nmax * 4));
  std::vector<unsigned> h(nmax);
  std::mt19937 g(46);
  for (auto& x : h) x = g();
  CK(cudaMemcpy(k, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  for (std::size_t i = 0; i < nmax; ++i) h[i] = static_cast<unsigned>(i);
  CK(cudaMemcpy(v, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  std::size_t tb = 0, t1 = 0;
  CK(gpuprim::radix_sort_pairs(nullptr, tb, k, ko, v, vo, nmax));
  CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, k, ko, v, vo, nmax));
  tb = std::max(tb, t1);
  void* temp;
  CK(cudaMalloc(&temp, tb));
  std::size_t* starts;
  int* overflow;
  CK(cudaMalloc(&starts, (kSegs + 1) * sizeof(std::size_t)));
  CK(cudaMalloc(&overflow, 4));
  if (range) {
    force_k = 1;
    const auto at = [](int cap) { return static_cast<std::size_t>(0.85 * cap * 65536) & ~std::size_t(1023); };
    run<true, 128, 9>(at(1152), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 256, 9>(at(2304), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 256, 12>(at(3072), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 256, 15>(at(3840), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 256, 18>(std::size_t(1) << 28, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 512, 12>(at(6144), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 512, 15>(at(7680), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 512, 18>(at(9216), k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    return 0;
  }
  {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    unsigned* h;
    CK(cudaMalloc(&h, kSegs * 4 + 4));
    const auto* k4 = reinterpret_cast<const uint4*>(k);
    const std::size_t n4 = nmax / 4;
    std::vector<float> t[4];
    for (int r = 0; r < 8; ++r) {
      t[0].push_back(event_us(0, e0, e1, [&] { hist16<0><<<132 * 8, 256>>>(k4, n4, h, h + kSegs); }));
      t[1].push_back(event_us(0, e0, e1, [&] { hist16<1><<<132 * 8, 256>>>(k4, n4, h, h + kSegs); }));
      t[2].push_back(event_us(0, e0, e1, [&] { hist16<16><<<132 * 8, 256>>>(k4, n4, h, h + kSegs); }));
      t[3].push_back(event_us(0, e0, e1, [&] { hist16<64><<<132 * 8, 256>>>(k4, n4, h, h + kSegs); }));
    }
    for (auto& x : t) std::sort(x.begin(), x.end());
    std::printf("2^28 keys: read only %.1f us, hist16 every key %.1f, one in 16 %.1f, one in 64 %.1f\n", t[0][4],
                t[1][4], t[2][4], t[3][4]);
  }
  for (std::size_t n : {std::size_t(1) << 24, std::size_t(1) << 26, std::size_t(1) << 27, std::size_t(1) << 28}) {
    run<false, 256, 18>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<false, 512, 9>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<false, 384, 12>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 256, 18>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 512, 9>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
    run<true, 384, 12>(n, k, v, ko, vo, kt, vt, kr, vr, temp, tb, starts, overflow);
  }
  return 0;
}
