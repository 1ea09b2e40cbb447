// Session 36: why do 1024 u64 keys take longer than 1024 u64/u32 pairs in the benchmark (H200
// 9.10 against 8.33 us, H100 9.01 against 7.88)? Event-timed as the benchmark times (inputs rotated
// through 64 copies), the four kinds interleaved call by call so that host drift hits all alike.
// `./small64 [calls]` prints median / p10 / p90 per kind and size; `./small64 0` runs each kind
// once (for ncu: kernel durations).
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>
int main(int argc, char** argv) {
  const int calls = argc > 1 ? atoi(argv[1]) : 3000;
  const size_t copies = 64, nmax = 4096;
  unsigned long long *k64, *k64o;
  unsigned *k32, *k32o, *v, *vo;
  CK(cudaMalloc(&k64, copies * nmax * 8));
  CK(cudaMalloc(&k64o, nmax * 8));
  CK(cudaMalloc(&k32, copies * nmax * 4));
  CK(cudaMalloc(&k32o, nmax * 4));
  CK(cudaMalloc(&v, copies * nmax * 4));
  CK(cudaMalloc(&vo, nmax * 4));
  std::mt19937_64 g(5);
  std::vector<unsigned long long> h64(copies * nmax);
  std::vector<unsigned> h32(copies * nmax), hv(copies * nmax);
  for (size_t i = 0; i < h64.size(); ++i) {
    h64[i] = g();
    h32[i] = unsigned(h64[i] >> 32);
    hv[i] = unsigned(i % nmax);
  }
  CK(cudaMemcpy(k64, h64.data(), h64.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(k32, h32.data(), h32.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(v, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));
  void* dummy;
  CK(cudaMalloc(&dummy, 256));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const char* names[] = {"u32 keys", "u64 keys", "u32/u32 pairs", "u64/u32 pairs"};
  for (size_t n : {size_t(1024), size_t(2048), size_t(4096)}) {
    auto run = [&](int kind, size_t c) {
      size_t tb = 256;  // the rank sort takes no workspace, but a null one would be a size query
      const size_t o = c * n;
      CK(kind == 0   ? gpuprim::radix_sort_keys(dummy, tb, k32 + o, k32o, n, 0, 32, s)
         : kind == 1 ? gpuprim::radix_sort_keys(dummy, tb, k64 + o, k64o, n, 0, 64, s)
         : kind == 2 ? gpuprim::radix_sort_pairs(dummy, tb, k32 + o, k32o, v + o, vo, n, 0, 32, s)
                     : gpuprim::radix_sort_pairs(dummy, tb, k64 + o, k64o, v + o, vo, n, 0, 64, s));
    };
    if (calls == 0) {
      for (int kind = 0; kind < 4; ++kind) run(kind, 0);
      CK(cudaDeviceSynchronize());
      continue;
    }
    std::vector<float> t[4];
    for (int i = 0; i < calls; ++i) {
      for (int q = 0; q < 4; ++q) {
        const int kind = (q + i) % 4;
        const float us = event_us(s, e0, e1, [&] { run(kind, size_t(i) % copies); });
        if (i >= 100) t[kind].push_back(us);
      }
    }
    for (int kind = 0; kind < 4; ++kind) {
      auto& x = t[kind];
      std::sort(x.begin(), x.end());
      printf("n=%5zu %-14s median %6.2f us  p10 %6.2f  p90 %6.2f\n", n, names[kind], x[x.size() / 2],
             x[x.size() / 10], x[x.size() * 9 / 10]);
    }
    // Pipelined: 200 sorts back to back, event to event, per sort (launch cost hidden where the
    // GPU is the bottleneck).
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<float> p;
      for (int r = 0; r < 5; ++r) {
        CK(cudaEventRecord(e0, s));
        for (int i = 0; i < 200; ++i) run(kind, size_t(i) % copies);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        p.push_back(ms * 1000 / 200);
      }
      std::sort(p.begin(), p.end());
      printf("n=%5zu %-14s pipelined %6.2f us a sort\n", n, names[kind], p[2]);
    }
  }
  return 0;
}
