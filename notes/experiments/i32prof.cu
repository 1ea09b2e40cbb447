// Session 39: per-kernel times of u32 and int32 key sorts of the same bits (ncu).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -I notes/experiments notes/experiments/i32prof.cu -o build/exp/i32prof
// Run:   ./i32prof 28   (event times), ncu --metrics gpu__time_duration.sum --csv ./i32prof 26
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>
int main(int argc, char** argv) {
  const size_t n = size_t(1) << (argc > 1 ? atoi(argv[1]) : 26);
  std::vector<unsigned> h(n);
  std::mt19937 g(7);
  for (auto& x : h) x = g();
  unsigned *k, *ko;
  CK(cudaMalloc(&k, n * 4));
  CK(cudaMalloc(&ko, n * 4));
  CK(cudaMemcpy(k, h.data(), n * 4, cudaMemcpyHostToDevice));
  size_t tb = 0, x = 0;
  CK(gpuprim::radix_sort_keys(nullptr, tb, k, ko, n));
  CK(gpuprim::radix_sort_keys(nullptr, x, (int*)k, (int*)ko, n));
  tb = std::max(tb, x);
  void* t;
  CK(cudaMalloc(&t, tb));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < 4; ++r) {
    for (int w = 0; w < 2; ++w) {
      const float us = event_us(nullptr, e0, e1, [&] {
        CK(w == 0 ? gpuprim::radix_sort_keys(t, tb, k, ko, n)
                  : gpuprim::radix_sort_keys(t, tb, (const int*)k, (int*)ko, n));
      });
      printf("%s %.1f us\n", w ? "i32" : "u32", us);
    }
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
