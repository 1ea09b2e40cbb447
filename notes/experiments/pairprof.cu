// Build: nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo --expt-relaxed-constexpr -Iinclude \
//          -o build/exp/pairprof notes/experiments/pairprof.cu
// One warm-up and one profiled sort of each kind (u32/u32 pairs, u32 keys) at 2^26, for ncu
// (notes/experiments/prof.sh).
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <random>
#include <vector>
#define CK(x)                                                           \
  do {                                                                  \
    cudaError_t e_ = (x);                                               \
    if (e_ != cudaSuccess) {                                            \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                         \
    }                                                                   \
  } while (0)
int main(int argc, char** argv) {
  size_t n = argc > 1 ? atol(argv[1]) : (size_t(1) << 26);
  std::vector<unsigned> h(n);
  std::mt19937 g(7);
  for (auto& x : h) x = g();
  unsigned *k, *ko, *v, *vo;
  CK(cudaMalloc(&k, n * 4));
  CK(cudaMalloc(&ko, n * 4));
  CK(cudaMalloc(&v, n * 4));
  CK(cudaMalloc(&vo, n * 4));
  CK(cudaMemcpy(k, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(v, h.data(), n * 4, cudaMemcpyHostToDevice));
  size_t tb = 0, tb2 = 0;
  CK(gpuprim::radix_sort_pairs(nullptr, tb, k, ko, v, vo, n));
  CK(gpuprim::radix_sort_keys(nullptr, tb2, k, ko, n));
  if (tb2 > tb) tb = tb2;
  void* t;
  CK(cudaMalloc(&t, tb));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < 2; ++r) {
    CK(cudaEventRecord(e0));
    CK(gpuprim::radix_sort_pairs(t, tb, k, ko, v, vo, n));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    printf("pairs %zu: %.1f us\n", n, ms * 1000);
  }
  for (int r = 0; r < 2; ++r) {
    CK(cudaEventRecord(e0));
    CK(gpuprim::radix_sort_keys(t, tb, k, ko, n));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    printf("keys %zu: %.1f us\n", n, ms * 1000);
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
